// The stylesheet is bundled by esbuild (lib/ship/console/build.ts): its import has no exports to type.
declare module '*.css';

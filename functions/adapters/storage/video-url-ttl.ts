/** Spec §2/§8: a video URL is valid for 24 hours. */
export const VIDEO_URL_TTL_SECONDS = 24 * 60 * 60;

/** A top-up's or adjustment's request id (its ledger entry is `topup:<id>`): a UUID by default. */
export const TOPUP_REQUEST_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

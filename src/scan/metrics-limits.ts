// Bounds of the scan exporter's series, shared by its zombie and stuck families.

/** Series per metric; what lies beyond is counted without labels. */
export const MAX_SERIES = 500;
/** The longest Kubernetes name (a DNS subdomain); ids are 64 characters. */
export const MAX_LABEL = 253;

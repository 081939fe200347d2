/** Each byte value (0-255) as two lowercase hex digits: ids are written byte by byte through it. */
export const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The first bytes of images of a given size, as each format writes them: enough to read the size. */

function u32be(n: number) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}
function u16be(n: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
function u16le(n: number) {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u24le(n: number) {
  return Buffer.from([n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff]);
}

export const imageHeaders = {
  'image/png': (w: number, h: number) =>
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      u32be(13),
      Buffer.from('IHDR'),
      u32be(w),
      u32be(h),
      Buffer.from([8, 2, 0, 0, 0]),
      u32be(0),
    ]),
  'image/gif': (w: number, h: number) =>
    Buffer.concat([Buffer.from('GIF89a'), u16le(w), u16le(h), Buffer.from([0, 0, 0])]),
  'image/jpeg': (w: number, h: number) =>
    Buffer.concat([
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
      Buffer.from('JFIF\0'),
      Buffer.from([1, 1, 0, 0, 1, 0, 1, 0, 0]),
      Buffer.from([0xff, 0xc0]),
      u16be(17),
      Buffer.from([8]),
      u16be(h),
      u16be(w),
      Buffer.from([3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xff, 0xd9]),
    ]),
  'image/webp': (w: number, h: number) =>
    Buffer.concat([
      Buffer.from('RIFF'),
      Buffer.from([30, 0, 0, 0]),
      Buffer.from('WEBPVP8X'),
      Buffer.from([10, 0, 0, 0, 0, 0, 0, 0]),
      u24le(w - 1),
      u24le(h - 1),
    ]),
} as const;

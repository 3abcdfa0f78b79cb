// One whole SHA-256 digest of a one-byte prefix and a message (see include/sha256_compress.h):
// the Merkle tree's leaf and node hashes, kept out of Swift so that hashing a million log lines
// costs one call each and allocates nothing.

#include <string.h>

#include "sha256_compress.h"

static void compress(int use_hardware, uint32_t state[8], const void *blocks, size_t count) {
  if (use_hardware) {
    sha256_compress_hardware(state, blocks, count);
  } else {
    sha256_compress_portable(state, blocks, count);
  }
}

void sha256_hash_prefixed(int use_hardware, unsigned char prefix, const void *bytes, size_t count,
                          unsigned char digest[32]) {
  uint32_t state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const unsigned char *input = (const unsigned char *)bytes;
  const uint64_t bit_count = ((uint64_t)count + 1) * 8;
  // The prefix shifts the message by one byte, so each block is staged: 64 bytes copied cost
  // far less than the block's 64 rounds.
  unsigned char block[128];
  block[0] = prefix;
  size_t used = 1;
  while (count >= 64 - used) {
    size_t taken = 64 - used;
    memcpy(block + used, input, taken);
    compress(use_hardware, state, block, 1);
    input += taken;
    count -= taken;
    used = 0;
  }
  memcpy(block + used, input, count);
  used += count;
  // FIPS 180-4 §5.1.1: 0x80, zeros, the length in bits as 64 bits big-endian; one block or two.
  block[used++] = 0x80;
  size_t total = used <= 56 ? 64 : 128;
  memset(block + used, 0, total - used);
  for (int index = 0; index < 8; index++) {
    block[total - 1 - index] = (unsigned char)(bit_count >> (8 * index));
  }
  compress(use_hardware, state, block, total / 64);
  for (int index = 0; index < 8; index++) {
    digest[4 * index] = (unsigned char)(state[index] >> 24);
    digest[4 * index + 1] = (unsigned char)(state[index] >> 16);
    digest[4 * index + 2] = (unsigned char)(state[index] >> 8);
    digest[4 * index + 3] = (unsigned char)state[index];
  }
}

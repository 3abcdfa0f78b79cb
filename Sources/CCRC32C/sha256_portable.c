// SHA-256's compression function in portable C (FIPS 180-4 §6.2.2), for CPUs without SHA-256
// instructions; see include/sha256_compress.h.

#include "sha256_compress.h"
#include "sha256_constants.h"

#define ROTATE_RIGHT(value, count) (((value) >> (count)) | ((value) << (32 - (count))))

static inline uint32_t load_big_endian(const unsigned char *bytes) {
  return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 |
         (uint32_t)bytes[3];
}

void sha256_compress_portable(uint32_t state[8], const void *blocks, size_t count) {
  const unsigned char *block = (const unsigned char *)blocks;
  uint32_t w[64];
  for (; count > 0; count--, block += 64) {
    for (int t = 0; t < 16; t++) {
      w[t] = load_big_endian(block + 4 * t);
    }
    for (int t = 16; t < 64; t++) {
      uint32_t w15 = w[t - 15];
      uint32_t w2 = w[t - 2];
      uint32_t sigma0 = ROTATE_RIGHT(w15, 7) ^ ROTATE_RIGHT(w15, 18) ^ (w15 >> 3);
      uint32_t sigma1 = ROTATE_RIGHT(w2, 17) ^ ROTATE_RIGHT(w2, 19) ^ (w2 >> 10);
      w[t] = sigma1 + w[t - 7] + sigma0 + w[t - 16];
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t++) {
      uint32_t big_sigma1 = ROTATE_RIGHT(e, 6) ^ ROTATE_RIGHT(e, 11) ^ ROTATE_RIGHT(e, 25);
      uint32_t choose = g ^ (e & (f ^ g));
      uint32_t temporary1 = h + big_sigma1 + choose + sha256_round_constants[t] + w[t];
      uint32_t big_sigma0 = ROTATE_RIGHT(a, 2) ^ ROTATE_RIGHT(a, 13) ^ ROTATE_RIGHT(a, 22);
      uint32_t majority = (a & b) | (c & (a | b));
      uint32_t temporary2 = big_sigma0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + temporary1;
      d = c;
      c = b;
      b = a;
      a = temporary1 + temporary2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

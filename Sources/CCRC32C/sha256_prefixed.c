// Whole SHA-256 digests of a one-byte prefix and a message (see include/sha256_compress.h): the
// Merkle tree's leaf and node hashes, kept out of Swift so that hashing a million log lines
// costs a few calls and allocates nothing. A message's first block (the prefix and 63 bytes)
// and its last one or two (the rest, the padding, the length) are staged on the stack; the
// blocks between them are read in place. With the CPU's instructions, messages are hashed two
// at a time (`sha256_compress_hardware_pair`).

#include <string.h>

#include "sha256_blocks.h"
#include "sha256_compress.h"

/// A message SHA-256(prefix ‖ bytes) laid out as blocks, and the state it is hashed into.
typedef struct {
  sha256_blocks blocks;
  uint32_t state[8];
  unsigned char first[64];
  unsigned char last[128];
} prefixed_message;

// SHA-256 stores its words most significant byte first.
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BIG_ENDIAN_32(value) __builtin_bswap32(value)
#define BIG_ENDIAN_64(value) __builtin_bswap64(value)
#else
#define BIG_ENDIAN_32(value) (value)
#define BIG_ENDIAN_64(value) (value)
#endif

/// Lays out SHA-256(`prefix` ‖ the `count` bytes at `bytes`) in `message`, which must not move
/// before it is hashed (its blocks point into it).
static void prepare(prefixed_message *message, unsigned char prefix, const unsigned char *bytes,
                    size_t count) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(message->state, initial, sizeof initial);
  const size_t total = count + 1;
  const size_t whole = total / 64;
  // The message's bytes in its last block or two: FIPS 180-4 §5.1.1 then adds 0x80, zeros and
  // the length in bits as 64 bits big-endian, in one block or two.
  const size_t rest = total % 64;
  const size_t last_count = rest + 9 <= 64 ? 1 : 2;
  if (whole == 0) {
    message->last[0] = prefix;
    memcpy(message->last + 1, bytes, count);
    message->blocks.run[0] = NULL;
    message->blocks.count[0] = 0;
    message->blocks.run[1] = NULL;
    message->blocks.count[1] = 0;
  } else {
    message->first[0] = prefix;
    memcpy(message->first + 1, bytes, 63);
    message->blocks.run[0] = message->first;
    message->blocks.count[0] = 1;
    // Block k ≥ 1 holds bytes 64k - 1 ..< 64k + 63.
    message->blocks.run[1] = bytes + 63;
    message->blocks.count[1] = whole - 1;
    memcpy(message->last, bytes + 64 * whole - 1, rest);
  }
  memset(message->last + rest, 0, 64 * last_count - rest);
  message->last[rest] = 0x80;
  const uint64_t bits = BIG_ENDIAN_64((uint64_t)total * 8);
  memcpy(message->last + 64 * last_count - 8, &bits, 8);
  message->blocks.run[2] = message->last;
  message->blocks.count[2] = last_count;
}

static void write_digest(const uint32_t state[8], unsigned char *digest) {
  for (int index = 0; index < 8; index++) {
    const uint32_t word = BIG_ENDIAN_32(state[index]);
    memcpy(digest + 4 * index, &word, 4);
  }
}

static void hash_one(int use_hardware, prefixed_message *message) {
  sha256_blocks_compress(use_hardware ? sha256_compress_hardware : sha256_compress_portable,
                         message->state, &message->blocks);
}

static void hash_two(int use_hardware, prefixed_message *a, prefixed_message *b) {
  if (use_hardware) {
    sha256_compress_hardware_pair(a->state, &a->blocks, b->state, &b->blocks);
  } else {
    hash_one(0, a);
    hash_one(0, b);
  }
}

void sha256_hash_prefixed(int use_hardware, unsigned char prefix, const void *bytes, size_t count,
                          unsigned char digest[32]) {
  prefixed_message message;
  prepare(&message, prefix, (const unsigned char *)bytes, count);
  hash_one(use_hardware, &message);
  write_digest(message.state, digest);
}

size_t sha256_leaf_hashes(int use_hardware, const void *bytes, size_t length,
                          unsigned char *digests, size_t capacity, uint64_t first_index,
                          uint64_t tile_width, int64_t *tile_starts, size_t *tile_start_count,
                          size_t *consumed) {
  const unsigned char *start = (const unsigned char *)bytes;
  const unsigned char *end = start + length;
  const unsigned char *line = start;
  size_t count = 0;
  *tile_start_count = 0;
  prefixed_message pair[2];
  // Lines are taken two at a time; `pending` says whether pair[0] holds one waiting for a mate.
  int pending = 0;
  while (count < capacity && line < end) {
    const unsigned char *newline = memchr(line, '\n', (size_t)(end - line));
    if (newline == NULL) break;
    if ((first_index + count) % tile_width == 0) {
      tile_starts[(*tile_start_count)++] = (int64_t)(line - start);
    }
    prepare(&pair[pending], 0x00, line, (size_t)(newline - line));
    if (pending) {
      hash_two(use_hardware, &pair[0], &pair[1]);
      write_digest(pair[0].state, digests + 32 * (count - 1));
      write_digest(pair[1].state, digests + 32 * count);
    }
    pending = !pending;
    count++;
    line = newline + 1;
  }
  if (pending) {
    hash_one(use_hardware, &pair[0]);
    write_digest(pair[0].state, digests + 32 * (count - 1));
  }
  *consumed = (size_t)(line - start);
  return count;
}

void sha256_node_hashes(int use_hardware, const void *children, size_t count, void *parents) {
  const unsigned char *input = (const unsigned char *)children;
  unsigned char *output = (unsigned char *)parents;
  prefixed_message pair[2];
  size_t index = 0;
  // Both nodes' inputs are staged before either digest is written: parents may overlap children.
  for (; index + 2 <= count; index += 2) {
    prepare(&pair[0], 0x01, input + 64 * index, 64);
    prepare(&pair[1], 0x01, input + 64 * index + 64, 64);
    hash_two(use_hardware, &pair[0], &pair[1]);
    write_digest(pair[0].state, output + 32 * index);
    write_digest(pair[1].state, output + 32 * index + 32);
  }
  if (index < count) {
    prepare(&pair[0], 0x01, input + 64 * index, 64);
    hash_one(use_hardware, &pair[0]);
    write_digest(pair[0].state, output + 32 * index);
  }
}

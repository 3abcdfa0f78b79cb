// A message's 64-byte blocks as up to three runs of consecutive blocks, so that a message whose
// start and end are staged (a prefix byte before it, the padding after it) is hashed with its
// middle read in place. Not in include/: internal to this target.
#ifndef SHA256_BLOCKS_H
#define SHA256_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  /// The first block of each run (NULL when the run is empty).
  const unsigned char *run[3];
  /// How many blocks each run holds.
  size_t count[3];
} sha256_blocks;

/// Where a walk over a `sha256_blocks` has got to.
typedef struct {
  const sha256_blocks *blocks;
  int run;
  size_t index;
} sha256_blocks_cursor;

/// The next block, or NULL after the last.
static inline const unsigned char *sha256_blocks_next(sha256_blocks_cursor *cursor) {
  while (cursor->run < 3) {
    int run = cursor->run;
    if (cursor->index < cursor->blocks->count[run]) {
      return cursor->blocks->run[run] + 64 * cursor->index++;
    }
    cursor->run++;
    cursor->index = 0;
  }
  return NULL;
}

/// Runs `compress` over every run of `blocks`, in order.
static inline void sha256_blocks_compress(void (*compress)(uint32_t[8], const void *, size_t),
                                          uint32_t state[8], const sha256_blocks *blocks) {
  for (int run = 0; run < 3; run++) {
    if (blocks->count[run] > 0) {
      compress(state, blocks->run[run], blocks->count[run]);
    }
  }
}

/// The compression over two messages' blocks, with the CPU's instructions: on x86-64 the two
/// messages' rounds interleaved, block by block, while both have blocks left. Call only where
/// `sha256_hardware_kind()` found the instructions.
void sha256_compress_hardware_pair(uint32_t state_a[8], const sha256_blocks *a,
                                   uint32_t state_b[8], const sha256_blocks *b);

#endif

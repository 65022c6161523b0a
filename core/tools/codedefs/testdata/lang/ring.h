#ifndef RING_H
#define RING_H

#include <stddef.h>

#define RING_DEFAULT_CAP 4096
#define RING_EMPTY(r) (ring_len(r) == 0)

typedef struct ring ring_t;

typedef struct {
    size_t pushed;
    size_t dropped;
} ring_stats;

struct ring *ring_new(size_t cap);
int ring_push(struct ring *r, unsigned char byte);
int ring_pop(struct ring *r, unsigned char *out);
size_t ring_len(const struct ring *r);
void ring_free(struct ring *r);

#endif

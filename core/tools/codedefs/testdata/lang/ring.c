/* Fixed-size ring buffer of bytes. */
#include <stdlib.h>
#include <string.h>
#include "ring.h"

struct ring {
    unsigned char *data;
    size_t cap;
    size_t head;
    size_t len;
};

enum ring_status { RING_OK, RING_FULL };

typedef int (*ring_visitor)(unsigned char byte, void *arg);

static size_t ring_index(const struct ring *r, size_t i)
{
    return (r->head + i) % r->cap;
}

struct ring *ring_new(size_t cap)
{
    struct ring *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->data = malloc(cap);
    r->cap = cap;
    return r;
}

int ring_push(struct ring *r, unsigned char byte)
{
    if (r->len == r->cap)
        return RING_FULL;
    r->data[ring_index(r, r->len++)] = byte;
    return RING_OK;
}

void ring_free(struct ring *r)
{
    free(r->data);
    free(r);
}

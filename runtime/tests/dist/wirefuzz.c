/* wirefuzz: the distributed deployment's message checks (dist/wire.c) fed
 * well-formed, truncated, bit-flipped and random messages.  Every
 * well-formed message must pass; every strict prefix of one must fail;
 * whatever passes must be safe to use the way serve.c uses it (its length
 * is the bytes received, its strings end inside it, its block offset is
 * inside the payload).  Runs without MPI: wire.c is compiled in. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../dist/wire.c"

_Atomic uint32_t dist_home_vm;
int dist_rank, dist_size = 1;
static char hosts[1][64] = {"here"};
char (*dist_hosts)[64] = hosts;

static unsigned long long rng = 88172645463325252ull;
static unsigned rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)rng;
}

static int failures;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            failures++;                                                                            \
            fprintf(stderr, "wirefuzz: " __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* What serve.c relies on once dmsg_check said yes. */
static void usable(const dmsg *m, size_t n)
{
    CHECK(m->len == n, "accepted a message whose length is not what arrived");
    CHECK(n >= sizeof(dmsg), "accepted a message shorter than its header");
    if (m->type == DM_CALL || m->type == DM_SEND || m->type == DM_CREATE) {
        CHECK(m->aux > 0 && m->aux <= dmsg_plen(m), "accepted a block offset outside the payload");
        CHECK(memchr(DMSG_PAYLOAD(m), 0, m->aux) != NULL, "accepted an unterminated file name");
    }
    if (m->type == DM_VM_CREATE)
        CHECK(dmsg_str(m, dmsg_plen(m)) != NULL, "accepted an unterminated host name");
    /* a block in pieces (dist_send_pieces): a send; its table inside the
     * payload, the pieces ascending and disjoint inside the block, the
     * inline bytes exactly the rest of the block */
    if (m->status && (m->type == DM_CALL || m->type == DM_SEND || m->type == DM_CREATE)) {
        CHECK(m->type == DM_SEND, "accepted pieces apart for type %d", m->type);
        uint32_t k = (uint32_t)m->status, plen = dmsg_plen(m);
        CHECK((uint64_t)m->aux + 12ull * k <= plen, "accepted a table of pieces past the payload");
        if ((uint64_t)m->aux + 12ull * k <= plen) {
            const uint32_t *t = (const uint32_t *)(DMSG_PAYLOAD(m) + m->aux);
            uint64_t end = 0, apart = 0;
            for (uint32_t i = 0; i < k; i++) {
                uint64_t off = t[3 * i], len = t[3 * i + 1], gap = t[3 * i + 2];
                CHECK(off >= end && len > 0 && off + len + gap <= m->blen,
                      "accepted a piece out of order or outside the block");
                end = off + len + gap;
                apart += len + gap;
            }
            CHECK(plen - m->aux - 12ull * k == m->blen - apart,
                  "accepted inline bytes that are not the rest of the block");
        }
        return;
    }
    /* a block apart: only for an invocation whose payload holds no block */
    if (m->blen) {
        CHECK(m->type == DM_CALL || m->type == DM_SEND, "accepted a block apart for type %d",
              m->type);
        CHECK(m->aux == dmsg_plen(m), "accepted a block apart and a block in the payload");
        CHECK(m->blen <= DMSG_MAX, "accepted a block apart larger than any message");
    }
}

static size_t off0_pad(size_t fl)
{
    return (fl + 7) & ~(size_t)7;
}

static dmsg *sample(int type, size_t *n)
{
    const char *file = "prog.mpd", *extra = type == DM_CREATE ? "mpdr_x_pat" : NULL;
    size_t fl = strlen(file) + 1, el = extra ? strlen(extra) + 1 : 0;
    size_t off = (fl + el + 7) & ~(size_t)7, blk = rnd() % 200;
    /* an invocation whose block is sent apart (comm.c, dmsg.blen) */
    int apart = (type == DM_CALL || type == DM_SEND) && rnd() % 3 == 0;
    if (apart)
        blk = 0;
    dmsg *m;
    /* a send whose large arguments come as pieces apart (mpd_send_gather) */
    if (type == DM_SEND && rnd() % 3 == 0) {
        uint32_t k = 1 + rnd() % 3, blen = 0, off[3], len[3], gap[3];
        for (uint32_t i = 0; i < k; i++) {
            off[i] = blen + rnd() % 64;
            len[i] = 1 + rnd() % 20000;
            gap[i] = rnd() % 2 ? 0 : rnd() % 30000;
            blen = off[i] + len[i] + gap[i];
        }
        blen += rnd() % 64;
        uint32_t inl = blen;
        for (uint32_t i = 0; i < k; i++)
            inl -= len[i] + gap[i];
        m = dmsg_new(type, off0_pad(fl) + 12 * k + inl);
        memcpy(DMSG_PAYLOAD(m), file, fl);
        m->aux = (uint32_t)off0_pad(fl);
        m->kind = MPD_INV_SEND;
        m->blen = blen;
        m->status = (int32_t)k;
        uint32_t *t = (uint32_t *)(DMSG_PAYLOAD(m) + m->aux);
        for (uint32_t i = 0; i < k; i++) {
            t[3 * i] = off[i];
            t[3 * i + 1] = len[i];
            t[3 * i + 2] = gap[i];
        }
        *n = m->len;
        return m;
    }
    switch (type) {
    case DM_CALL:
    case DM_SEND:
    case DM_CREATE:
        m = dmsg_new(type, off + blk);
        memcpy(DMSG_PAYLOAD(m), file, fl);
        if (extra)
            memcpy(DMSG_PAYLOAD(m) + fl, extra, el);
        m->aux = (uint32_t)off;
        m->kind = type == DM_CALL ? MPD_INV_CALL : MPD_INV_SEND;
        if (apart)
            m->blen = DIST_BLOCK_APART + rnd() % 100000;
        break;
    case DM_VM_CREATE:
        m = dmsg_new(type, 5);
        memcpy(DMSG_PAYLOAD(m), "host", 5);
        break;
    case DM_OUTPUT:
        m = dmsg_new(type, 3);
        memcpy(DMSG_PAYLOAD(m), "hi\n", 3);
        m->aux = 1 + rnd() % 2;
        break;
    default:
        m = dmsg_new(type, rnd() % 3 ? 0 : 16);
        break;
    }
    *n = m->len;
    return m;
}

int main(void)
{
    static const int types[] = {DM_CALL,       DM_SEND,    DM_REPLY,     DM_CREATE,  DM_DESTROY,
                                DM_DESTROY_VM, DM_PENDING, DM_VM_CREATE, DM_VM_INIT, DM_VM_FREED,
                                DM_WHERE,      DM_STOP,    DM_OUTPUT,    DM_PROBE,   DM_PROBE_ACK,
                                DM_IDLE,       DM_EXIT,    DM_DONE,      DM_ABORT};
    int ntypes = (int)(sizeof types / sizeof types[0]), accepted = 0, rejected = 0;
    for (int round = 0; round < 2000; round++) {
        size_t n;
        dmsg *m = sample(types[round % ntypes], &n);
        const char *why = dmsg_check(m, n);
        CHECK(!why, "refused a well-formed message of type %d: %s", m->type, why ? why : "");
        /* every strict prefix is refused (a truncated message) */
        for (size_t k = 0; k < n; k += 1 + rnd() % 8) {
            char *t = malloc(k ? k : 1);
            memcpy(t, m, k);
            CHECK(dmsg_check(t, k) != NULL, "accepted a message truncated to %zu of %zu bytes", k,
                  n);
            free(t);
        }
        /* flipped bytes: refused, or usable as it is */
        for (int f = 0; f < 20; f++) {
            char *t = malloc(n);
            memcpy(t, m, n);
            int flips = 1 + rnd() % 4;
            for (int i = 0; i < flips; i++)
                t[rnd() % n] ^= (char)(1 + rnd() % 255);
            if (dmsg_check(t, n) == NULL) {
                accepted++;
                usable((dmsg *)t, n);
            } else {
                rejected++;
            }
            free(t);
        }
        free(m);
    }
    /* random bytes, random lengths, sometimes with a valid magic and length */
    for (int round = 0; round < 20000; round++) {
        size_t n = rnd() % 300;
        unsigned char *t = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            t[i] = (unsigned char)rnd();
        if (n >= sizeof(dmsg) && rnd() % 2) {
            ((dmsg *)t)->magic = DMSG_MAGIC;
            ((dmsg *)t)->len = (uint32_t)n;
            ((dmsg *)t)->type = (uint16_t)types[rnd() % ntypes];
        }
        if (dmsg_check(t, n) == NULL) {
            accepted++;
            usable((dmsg *)t, n);
        } else {
            rejected++;
        }
        free(t);
    }
    if (failures) {
        fprintf(stderr, "wirefuzz: %d failures\n", failures);
        return 1;
    }
    printf("wirefuzz: ok (%d mutants accepted as usable, %d refused)\n", accepted, rejected);
    return 0;
}

/* wire.c: the message format between virtual machines, and its checks.
 * Everything a message says is checked before it is used: its length
 * against what arrived, its type, the strings it carries (terminated
 * inside it), the blocks it carries (a whole number of bytes after the
 * invocation header, within the size limit).  A message that fails is
 * reported and dropped (docs/distributed.md, "Marshalling"). */
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include "dist/dist.h"

/* One message buffer kept per thread: a message is built and sent by the
 * same thread, and freed right after its send (comm.c's send_locked), so
 * the next one reuses it -- no malloc/free per message (perf: 1-2% of a
 * remote call).  Larger buffers than DMSG_CACHED are not kept. */
#define DMSG_CACHED 32768
static _Thread_local dmsg *cached;

void dmsg_free(dmsg *m)
{
    if (!m)
        return;
    if (!cached && malloc_usable_size(m) <= DMSG_CACHED + sizeof(dmsg)) {
        cached = m;
        return;
    }
    free(m);
}

dmsg *dmsg_new(int type, size_t plen)
{
    dmsg *m = dmsg_new_raw(type, plen);
    memset(DMSG_PAYLOAD(m), 0, plen);
    return m;
}

dmsg *dmsg_new_raw(int type, size_t plen)
{
    if (plen > DMSG_MAX)
        mpd_rts_fatal("message to another virtual machine too large (%zu bytes)", plen);
    size_t need = sizeof(dmsg) + plen;
    dmsg *m = NULL;
    if (cached && malloc_usable_size(cached) >= need) {
        m = cached;
        cached = NULL;
    } else {
        m = malloc(need);
    }
    if (!m)
        mpd_rts_fatal("out of memory for a message");
    memset(m, 0, sizeof *m);
    m->magic = DMSG_MAGIC;
    m->type = (uint16_t)type;
    m->len = (uint32_t)(sizeof(dmsg) + plen);
    m->src_vm = atomic_load(&dist_home_vm);
    mpd_proc *self = mpd_self();
    m->prio = self ? mpd_proc_priority(self) : 0;
    return m;
}

/* A SEND whose block comes partly inline, partly as pieces apart: after
 * the file name (at aux), `status` triples {offset, length, gap} of the
 * pieces (gap: bytes after the piece that are not sent), ascending
 * and disjoint inside the block of blen bytes; then the rest of the block,
 * in order, without the pieces and their gaps. */
const char *dist_pieces_check(const dmsg *m)
{
    uint32_t plen = dmsg_plen(m), k = (uint32_t)m->status;
    if (m->type != DM_SEND || m->status < 0 || k > DIST_PIECES_MAX || !m->blen ||
        m->blen > DMSG_MAX || (uint64_t)m->aux + 12ull * k > plen)
        return "invocation with a bad list of pieces apart";
    const uint32_t *t = (const uint32_t *)(DMSG_PAYLOAD(m) + m->aux);
    uint64_t end = 0, apart = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint64_t off = t[3 * i], len = t[3 * i + 1], gap = t[3 * i + 2];
        if (off < end || len == 0 || off + len + gap > m->blen)
            return "invocation with a bad piece apart";
        end = off + len + gap;
        apart += len + gap;
    }
    if ((uint64_t)plen - m->aux - 12ull * k != m->blen - apart)
        return "invocation whose inline bytes and pieces apart do not make its block";
    return NULL;
}

static int type_known(unsigned t)
{
    return (t >= DM_CALL && t < DM_NBASIC) || (t >= DM_OUTPUT && t < DM_TYPE_END);
}

const char *dmsg_check(const void *buf, size_t n)
{
    if (n < sizeof(dmsg))
        return "truncated message (shorter than its header)";
    const dmsg *m = buf;
    if (m->magic != DMSG_MAGIC)
        return "not a message of this program (bad magic number)";
    if (m->len != n)
        return "truncated message (its length says otherwise)";
    if (!type_known(m->type))
        return "message of an unknown type";
    uint32_t plen = dmsg_plen(m);
    switch (m->type) {
    case DM_CALL:
    case DM_SEND:
    case DM_CREATE:
        /* a string (file or pattern symbol), then a block's parameters */
        if (m->aux > plen || m->aux == 0 || (m->aux & 7))
            return "invocation with a bad block offset";
        if (!memchr(DMSG_PAYLOAD(m), 0, m->aux))
            return "invocation without its file name";
        if ((uint64_t)plen - m->aux + sizeof(mpd_invb) > UINT32_MAX / 2)
            return "invocation block too large";
        if ((m->type == DM_CALL || m->type == DM_SEND) &&
            m->kind != (m->type == DM_CALL ? MPD_INV_CALL : MPD_INV_SEND))
            return "invocation of an unknown kind";
        if (m->status != 0) /* a block in pieces (dist_pieces) */
            return dist_pieces_check(m);
        if (m->blen && (m->type == DM_CREATE || m->aux != plen || m->blen > DMSG_MAX))
            return "invocation with a bad block apart";
        break;
    case DM_VM_CREATE:
        if (plen == 0 || !memchr(DMSG_PAYLOAD(m), 0, plen))
            return "vm request without a host name";
        break;
    case DM_OUTPUT:
        if (m->aux != 1 && m->aux != 2)
            return "output for an unknown stream";
        break;
    }
    if (m->blen && m->type != DM_CALL && m->type != DM_SEND)
        return "a block apart for a message that has none";
    return NULL;
}

const char *dmsg_str(const dmsg *m, uint32_t limit)
{
    uint32_t plen = dmsg_plen(m);
    if (limit > plen)
        limit = plen;
    const char *p = DMSG_PAYLOAD(m);
    return limit && memchr(p, 0, limit) ? p : NULL;
}

void dmsg_reject(int src, const char *why)
{
    fprintf(stderr,
            "%sRTS warning: dropped a malformed message from the process of rank %d (%s): %s\n",
            mpd_rts_label, src, src >= 0 && src < dist_size ? dist_hosts[src] : "?", why);
    fflush(stderr);
}

/* disthook.h: where the language layer hands work to the distributed
 * layer (runtime/dist/, libmpddist.a, linked only into programs built for
 * the distributed deployment: docs/distributed.md).  In the embedded
 * default mpd__dist is NULL and every virtual machine lives in this
 * process; each hook below is one test of that pointer on a path that is
 * already out of line (create, destroy, an invocation through a
 * capability of another vm).
 *
 * Capabilities carry the number of the vm their object lives on:
 * mpd__cap_vm is this process's (1 in the embedded default, where every
 * capability says 1).  A capability whose vm is neither 0 (null, noop) nor
 * mpd__cap_vm names an object of another process. */
#ifndef MPD_DISTHOOK_H
#define MPD_DISTHOOK_H

#include "mpd/abi/ops.h"
#include "mpd/abi/lang.h"

typedef struct mpd_dist_ops {
    /* create vm() [on machine]; host: the name located for machine (NULL:
     * none, then machine 0 is the main vm's host, -1 the creator's) */
    mpd_cap (*vm_create)(const char *F, int L, int machine, const char *host);
    /* create pat(args) on vm (a vm of another process) */
    mpd_cap (*create_on)(const char *F, int L, const mpd_respat *pat, mpd_invb *args, mpd_cap vm);
    /* call/send through a capability of another vm; call: results in ib */
    void (*invoke)(const char *F, int L, mpd_cap c, mpd_invb *ib, int kind);
    /* send through a capability of another vm whose large arguments are
     * not in ib yet: g (n pieces) says where they are and go (NULL: the
     * language layer copies them in and calls invoke) */
    void (*send_gather)(const char *F, int L, mpd_cap c, mpd_invb *ib, const mpd_gather *g, int n);
    /* a runtime-owned block h (send, forward, co) for a capability of
     * another vm: answered through h->done/orig/co like inv_deliver's */
    void (*deliver)(const char *F, int L, mpd_cap c, mpd_invb *h);
    /* destroy of a resource or vm capability of another vm */
    void (*destroy)(const char *F, int L, mpd_cap c);
    /* ?c for an op of another vm */
    int (*pending)(const char *F, int L, mpd_cap c);
    /* a call that came from another vm is answered (MPD_INVF_REMOTE) */
    void (*answer)(mpd_invb *ib);
    /* mymachine() of this process's vm */
    int (*machine)(void);
    /* the main resource: returns 0 on the main vm (start it as usual), 1
     * on a process that serves other vms instead */
    int (*main_resource)(const mpd_respat *pat, mpd_invb *args);
    /* stop(n) from this vm (after the final code when this is the main
     * vm and n = 0): ends every vm's process with status n */
    void (*stop)(int status); /* does not return */
} mpd_dist_ops;

extern const mpd_dist_ops *mpd__dist;
extern uint32_t mpd__cap_vm;

/* Set by the distributed layer when this process starts serving vm `vm`
 * (its resources and globals are then created on it). */
void res_set_home_vm(uint32_t vm);
/* Destroys everything on this process's vm (resources oldest first, then
 * globals), as destroy of its capability does: for a request from another vm. */
void res_destroy_home_vm(const char *F, int L);
/* The host name locate() gave machine n, or NULL. */
const char *res_located_host(int n);

static inline int cap_is_remote(mpd_cap c)
{
    return __builtin_expect(mpd__dist != NULL, 0) && c.vm != 0 && c.vm != mpd__cap_vm;
}

#endif

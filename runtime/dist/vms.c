/* vms.c: virtual machine numbers and the ranks that serve them.
 *
 * Rank 0 keeps the table: vm numbers are handed out in creation order
 * (vm 1 is the main one, on rank 0), each to a free rank, and a rank whose
 * vm was destroyed is free again.  Every other process learns where a vm
 * lives by asking rank 0 once (DM_WHERE) and remembers it: a vm number is
 * never reused, so the answer never goes stale (a message for a destroyed
 * vm is refused by the rank that served it). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "dist/dist.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int *vm_rank; /* [vm]: its rank, -1 destroyed, -2 unknown */
static uint32_t vm_cap;
static uint32_t nvms = 1; /* rank 0: numbers handed out */
static uint32_t *rank_vm; /* rank 0: [rank] its vm, 0 free */

static void grow(uint32_t vm)
{
    if (vm < vm_cap)
        return;
    uint32_t cap = vm_cap ? vm_cap : 64;
    while (cap <= vm)
        cap *= 2;
    int *t = realloc(vm_rank, cap * sizeof *t);
    if (!t)
        mpd_rts_fatal("out of memory");
    for (uint32_t i = vm_cap; i < cap; i++)
        t[i] = -2;
    vm_rank = t;
    vm_cap = cap;
}

void dist_vms_note(uint32_t vm, int rank)
{
    pthread_mutex_lock(&mu);
    grow(vm);
    vm_rank[vm] = rank;
    pthread_mutex_unlock(&mu);
}

int dist_rank_of_vm(uint32_t vm, const char *F, int L)
{
    pthread_mutex_lock(&mu);
    grow(vm);
    int r = vm_rank[vm];
    if (vm == 1)
        r = 0;
    pthread_mutex_unlock(&mu);
    if (r != -2)
        return r;
    if (dist_rank == 0)
        return -1;
    dmsg *m = dmsg_new(DM_WHERE, 0);
    m->aux = vm;
    dmsg *rep = dist_request(0, m, F, L);
    r = rep->status;
    free(rep);
    if (r < -1 || r >= dist_size)
        r = -1;
    if (r >= 0)
        dist_vms_note(vm, r);
    return r;
}

static int same_host(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return 1;
    /* a short name names the host of its full name */
    size_t la = strcspn(a, "."), lb = strcspn(b, ".");
    return la == lb && !strncmp(a, b, la) && (!a[la] || !b[lb]);
}

int dist_vms_pick(const char *host, int near_rank, const char **why)
{
    static char msg[256];
    pthread_mutex_lock(&mu);
    if (!rank_vm) {
        rank_vm = calloc((size_t)dist_size, sizeof *rank_vm);
        if (!rank_vm)
            mpd_rts_fatal("out of memory");
        rank_vm[0] = 1;
    }
    int pick = -1, known = 0;
    if (host && *host) {
        int local = !strcmp(host, "localhost");
        for (int r = 0; r < dist_size; r++) {
            if (!(local ? same_host(dist_hosts[r], dist_hosts[0]) : same_host(dist_hosts[r], host)))
                continue;
            known = 1;
            if (!rank_vm[r]) {
                pick = r;
                break;
            }
        }
        if (!known)
            snprintf(msg, sizeof msg,
                     "create vm(): no process of this run is on host \"%s\" "
                     "(start the program with mpirun on a hostfile that names it)",
                     host);
        else if (pick < 0)
            snprintf(msg, sizeof msg,
                     "create vm(): every process on host \"%s\" already serves a "
                     "virtual machine (%d processes in all: start more with mpirun -n)",
                     host, dist_size);
    } else {
        /* on the creator's host if a process there is free, else anywhere */
        for (int pass = 0; pass < 2 && pick < 0; pass++)
            for (int r = 1; r < dist_size; r++)
                if (!rank_vm[r] && (pass || same_host(dist_hosts[r], dist_hosts[near_rank]))) {
                    pick = r;
                    break;
                }
        if (pick < 0)
            snprintf(msg, sizeof msg,
                     "create vm(): every process of this run already serves a "
                     "virtual machine (%d process%s: start the program with more, mpirun -n N)",
                     dist_size, dist_size == 1 ? "" : "es");
    }
    if (pick >= 0)
        rank_vm[pick] = UINT32_MAX; /* taken; numbered by dist_vms_assign */
    pthread_mutex_unlock(&mu);
    *why = msg;
    return pick;
}

uint32_t dist_vms_assign(int rank)
{
    pthread_mutex_lock(&mu);
    uint32_t vm = ++nvms;
    /* as MPD: once distributed, the main vm's messages say "[vm 1]" */
    snprintf(mpd_rts_label, sizeof mpd_rts_label, "[vm 1] ");
    rank_vm[rank] = vm;
    grow(vm);
    vm_rank[vm] = rank;
    pthread_mutex_unlock(&mu);
    return vm;
}

void dist_vms_freed(int rank)
{
    pthread_mutex_lock(&mu);
    if (rank_vm && rank > 0 && rank < dist_size && rank_vm[rank]) {
        uint32_t vm = rank_vm[rank];
        if (vm < vm_cap)
            vm_rank[vm] = -1;
        rank_vm[rank] = 0;
    }
    pthread_mutex_unlock(&mu);
}

uint32_t dist_vms_of_rank(int rank)
{
    uint32_t vm = rank_vm && rank >= 0 && rank < dist_size ? rank_vm[rank] : 0;
    return vm == UINT32_MAX ? 0 : vm;
}

int dist_vms_live(int *ranks, int max)
{
    int n = 0;
    pthread_mutex_lock(&mu);
    for (uint32_t vm = nvms; vm >= 2 && n < max; vm--)
        if (vm < vm_cap && vm_rank[vm] > 0)
            ranks[n++] = vm_rank[vm];
    pthread_mutex_unlock(&mu);
    return n;
}

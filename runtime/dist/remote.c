/* remote.c: the language layer's hooks (disthook.h) -- what a process does
 * when it creates a vm, creates a resource on another vm, invokes, forwards
 * to, destroys or asks ?op of another vm's objects, and stop. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include "dist/dist.h"

void dist_answer(mpd_invb *ib); /* serve.c */

/* The rank serving vm, or an abort at F, L. */
static int rank_for(uint32_t vm, const char *F, int L, const char *what)
{
    int r = dist_rank_of_vm(DVM_NUM(vm), F, L);
    if (r < 0)
        mpd_rts_abort(F, L, "%s: virtual machine %u no longer exists", what, DVM_NUM(vm));
    return r;
}

/* A reply with an error status: abort at the requester's statement. */
static void check_reply(dmsg *rep, const char *F, int L)
{
    if (rep->status == 0)
        return;
    const char *why = dmsg_str(rep, dmsg_plen(rep));
    mpd_rts_abort(F, L, "%s", why ? why : "request refused by another virtual machine");
}

/* A message carrying file name F and then `n` bytes of block. */
static dmsg *with_file(int type, const char *F, const char *extra, size_t n, uint32_t *boff)
{
    size_t fl = strlen(F ? F : "?") + 1, el = extra ? strlen(extra) + 1 : 0;
    size_t off = (fl + el + 7) & ~(size_t)7;
    dmsg *m = dmsg_new_raw(type, off + n); /* the block is copied in whole */
    memset(DMSG_PAYLOAD(m), 0, off);
    memcpy(DMSG_PAYLOAD(m), F ? F : "?", fl);
    if (extra)
        memcpy(DMSG_PAYLOAD(m) + fl, extra, el);
    m->aux = (uint32_t)off;
    *boff = (uint32_t)off;
    return m;
}

void dist_invoke(const char *F, int L, mpd_cap c, mpd_invb *ib, int kind)
{
    int r = rank_for(c.vm, F, L, "invoke");
    uint32_t n = ib->size > sizeof(mpd_invb) ? ib->size - (uint32_t)sizeof(mpd_invb) : 0, off;
    /* a large block is sent from where it is, as a message of its own */
    int apart = n >= DIST_BLOCK_APART;
    dmsg *m = with_file(kind == MPD_INV_CALL ? DM_CALL : DM_SEND, F, NULL, apart ? 0 : n, &off);
    m->kind = (uint16_t)kind;
    m->dst_vm = c.vm;
    m->cap = c;
    m->line = L;
    if (apart)
        m->blen = n;
    else
        memcpy(DMSG_PAYLOAD(m) + off, ib + 1, n);
    const void *blk = apart ? (const void *)(ib + 1) : NULL;
    if (kind != MPD_INV_CALL) {
        dist_send_block(r, m, blk);
        return;
    }
    dmsg *rep = dist_request_into(r, m, blk, ib + 1, n, F, L);
    if (!rep)
        return; /* the results are in ib */
    check_reply(rep, F, L);
    if (dmsg_plen(rep) != n) {
        uint32_t got = dmsg_plen(rep);
        free(rep);
        mpd_rts_abort(
            F, L, "malformed reply from another virtual machine (%u bytes of results, %u expected)",
            got, n);
    }
    memcpy(ib + 1, DMSG_PAYLOAD(rep), n);
    free(rep);
}

static void hook_invoke(const char *F, int L, mpd_cap c, mpd_invb *ib, int kind)
{
    dist_invoke(F, L, c, ib, kind);
}

/* How much of gather piece g travels: a string's header and its
 * characters up to its length (and the NUL after them), not its room. */
static size_t piece_sent(const mpd_gather *g)
{
    if (!g->str || g->n < sizeof(mpd_strhdr))
        return g->n;
    const mpd_strhdr *h = g->src;
    if (h->len < 0 || h->len > h->max || sizeof(mpd_strhdr) + (size_t)h->len + 1 > g->n)
        return g->n;
    return sizeof(mpd_strhdr) + (size_t)h->len + 1;
}

/* send c(args) whose blob arguments are not in ib yet (mpd_send_gather):
 * the large ones go from where they are, each a message of its own
 * received straight into its place in the receiver's block (no copy into
 * ib here: perf put that copy at half a 64 KiB sender's time), a string
 * at its length with its maximum in its header (the rest of its room is
 * not sent); small ones are copied in and travel with the rest of the
 * block. */
static void hook_send_gather(const char *F, int L, mpd_cap c, mpd_invb *ib, const mpd_gather *g,
                             int n)
{
    char *base = (char *)(ib + 1);
    uint32_t bn = ib->size > sizeof(mpd_invb) ? ib->size - (uint32_t)sizeof(mpd_invb) : 0;
    int k = 0;
    uint64_t apart = 0;
    const char *end = base;
    for (int i = 0; i < n; i++) {
        const char *d = g[i].dst;
        /* inside the block, in order, disjoint: as the compiler lays them */
        if (d < end || g[i].n > (size_t)(base + bn - d)) {
            k = -1;
            break;
        }
        end = d + g[i].n;
        if (g[i].n >= DIST_PIECE_APART) {
            k++;
            apart += g[i].n; /* with its gap: what the inline bytes lack */
        }
    }
    if (k <= 0 || k > DIST_PIECES_MAX) { /* nothing worth sending apart */
        for (int i = 0; i < n; i++)
            memcpy(g[i].dst, g[i].src, g[i].n);
        dist_invoke(F, L, c, ib, MPD_INV_SEND);
        return;
    }
    int r = dist_rank_of_vm(DVM_NUM(c.vm), F, L);
    if (r < 0)
        mpd_rts_abort(F, L, "invoke: virtual machine %u no longer exists", DVM_NUM(c.vm));
    uint32_t off, tab = 12u * (uint32_t)k;
    dmsg *m = with_file(DM_SEND, F, NULL, tab + (bn - apart), &off);
    m->kind = MPD_INV_SEND;
    m->dst_vm = c.vm;
    m->cap = c;
    m->line = L;
    m->blen = bn;
    m->status = k;
    uint32_t *t = (uint32_t *)(DMSG_PAYLOAD(m) + off);
    char *in = DMSG_PAYLOAD(m) + off + tab; /* the block without its pieces */
    const void *src[DIST_PIECES_MAX];
    uint32_t len[DIST_PIECES_MAX];
    const char *at = base;
    int j = 0;
    for (int i = 0; i < n; i++) {
        const char *d = g[i].dst;
        if (g[i].n < DIST_PIECE_APART) {
            memcpy(g[i].dst, g[i].src, g[i].n); /* travels inline */
            continue;
        }
        memcpy(in, at, (size_t)(d - at));
        in += d - at;
        size_t sent = piece_sent(&g[i]);
        t[3 * j] = (uint32_t)(d - base);
        t[3 * j + 1] = (uint32_t)sent;
        t[3 * j + 2] = (uint32_t)(g[i].n - sent);
        src[j] = g[i].src;
        len[j] = (uint32_t)sent;
        j++;
        at = d + g[i].n;
    }
    memcpy(in, at, (size_t)(base + bn - at));
    dist_send_pieces(r, m, src, len, k);
}

/* A runtime-owned block (forward, co) for another vm: a call goes out from
 * a process of its own, which answers h as its servicer would. */
typedef struct proxy {
    mpd_cap c;
    mpd_invb *h;
} proxy;

static void proxy_run(void *arg)
{
    proxy *p = arg;
    dist_invoke(p->h->file, p->h->line, p->c, p->h, MPD_INV_CALL);
    inv_complete(p->h);
    free(p);
}

static void hook_deliver(const char *F, int L, mpd_cap c, mpd_invb *h)
{
    h->file = F;
    h->line = L;
    if (h->kind != MPD_INV_CALL) {
        dist_invoke(F, L, c, h, MPD_INV_SEND);
        inv_complete(h);
        return;
    }
    proxy *p = malloc(sizeof *p);
    if (!p)
        mpd_rts_fatal("out of memory");
    p->c = c;
    p->h = h;
    opk_spawn(proxy_run, p, "remote call", NULL, 0);
}

static mpd_cap hook_vm_create(const char *F, int L, int machine, const char *host)
{
    uint32_t off;
    (void)off;
    size_t hl = host ? strlen(host) + 1 : 1;
    dmsg *m = dmsg_new(DM_VM_CREATE, hl);
    if (host)
        memcpy(DMSG_PAYLOAD(m), host, hl);
    m->line = machine;
    m->status = dist_home_machine; /* the creator's, for machine -1 */
    dmsg *rep;
    if (dist_rank == 0) {
        /* the manager is here: do what serve.c's vm_create_job does */
        const char *why;
        int r = dist_vms_pick(host, 0, &why);
        free(m);
        if (r < 0)
            mpd_rts_abort(F, L, "%s", why);
        uint32_t vm = dist_vms_assign(r);
        dmsg *init = dmsg_new(DM_VM_INIT, 0);
        init->aux = vm;
        init->line = machine == -1 ? dist_home_machine : machine;
        free(dist_request(r, init, F, L));
        mpd_cap c = {DVM(vm), MPD_CAP_VM, 3};
        return c;
    }
    rep = dist_request(0, m, F, L);
    check_reply(rep, F, L);
    uint32_t vm = rep->aux;
    int r = rep->line;
    free(rep);
    if (r <= 0 || r >= dist_size)
        mpd_rts_abort(F, L, "malformed reply from the main virtual machine");
    dist_vms_note(vm, r);
    mpd_cap c = {DVM(vm), MPD_CAP_VM, 3};
    return c;
}

static mpd_cap hook_create_on(const char *F, int L, const mpd_respat *pat, mpd_invb *args,
                              mpd_cap vm)
{
    int r = rank_for(vm.vm, F, L, "create");
    Dl_info info;
    if (!dladdr(pat, &info) || !info.dli_sname || info.dli_saddr != (void *)pat)
        mpd_rts_abort(F, L,
                      "create %s on another virtual machine: its pattern is not exported "
                      "(link the program with mpd --mpi)",
                      pat->name);
    uint32_t n = args && args->size > sizeof(mpd_invb) ? args->size - (uint32_t)sizeof(mpd_invb)
                                                       : 0,
             off;
    dmsg *m = with_file(DM_CREATE, F, info.dli_sname, n, &off);
    m->dst_vm = vm.vm;
    m->line = L;
    if (n)
        memcpy(DMSG_PAYLOAD(m) + off, args + 1, n);
    dmsg *rep = dist_request(r, m, F, L);
    if (rep->status != 0) {
        const char *why = dmsg_str(rep, dmsg_plen(rep));
        mpd_rts_abort(F, L, "create %s: %s", pat->name, why ? why : "refused");
    }
    mpd_cap c = rep->cap;
    free(rep);
    if (c.vm != vm.vm || c.idx != MPD_CAP_RES)
        mpd_rts_abort(F, L, "create %s: malformed reply from another virtual machine", pat->name);
    return c;
}

static void hook_destroy(const char *F, int L, mpd_cap c)
{
    int vmcap = c.idx == MPD_CAP_VM;
    if (vmcap && DVM_NUM(c.vm) == 1)
        mpd_rts_abort(F, L, "cannot destroy the main virtual machine");
    int r = dist_rank_of_vm(DVM_NUM(c.vm), F, L);
    if (r < 0) {
        if (vmcap)
            mpd_rts_abort(F, L, "attempting to destroy a virtual machine that no longer exists");
        mpd_rts_abort(F, L, "attempting to destroy resource that no longer exists");
    }
    uint32_t off;
    dmsg *m = with_file(vmcap ? DM_DESTROY_VM : DM_DESTROY, F, NULL, 0, &off);
    m->dst_vm = c.vm;
    m->cap = c;
    m->line = L;
    if (vmcap && c.vm == mpd__cap_vm) {
        /* this vm destroys itself: the destroyer goes last, so a process
         * of the listener's kind asks; nobody is left to answer */
        dist_deliver_inbound(m, dist_rank, NULL);
        opk_exit();
    }
    dmsg *rep = dist_request(r, m, F, L);
    check_reply(rep, F, L);
    free(rep);
}

static int hook_pending(const char *F, int L, mpd_cap c)
{
    int r = rank_for(c.vm, F, L, "?");
    dmsg *m = dmsg_new(DM_PENDING, 0);
    m->dst_vm = c.vm;
    m->cap = c;
    m->line = L;
    dmsg *rep = dist_request(r, m, F, L);
    if (rep->status != 0) {
        const char *why = dmsg_str(rep, dmsg_plen(rep));
        mpd_rts_abort(F, L, "%s", why ? why : "invalid operation capability");
    }
    int n = (int)rep->aux;
    free(rep);
    return n;
}

static int hook_machine(void)
{
    return dist_home_machine;
}

static void hook_stop(int status)
{
    if (dist_rank == 0)
        dist_exit_all(status, 0);
    /* the main vm stops the program: after its final code when 0 */
    dmsg *m = dmsg_new(DM_STOP, 0);
    m->status = status;
    dist_send(0, m);
    mpd_ext never;
    mpd_ext_init(&never);
    for (;;)
        mpd_ext_wait(&never, 0);
}

static int hook_main_resource(const mpd_respat *pat, mpd_invb *args);

const mpd_dist_ops dist_ops = {
    .vm_create = hook_vm_create,
    .create_on = hook_create_on,
    .invoke = hook_invoke,
    .send_gather = hook_send_gather,
    .deliver = hook_deliver,
    .destroy = hook_destroy,
    .pending = hook_pending,
    .answer = dist_answer,
    .machine = hook_machine,
    .main_resource = hook_main_resource,
    .stop = hook_stop,
};

static int hook_main_resource(const mpd_respat *pat, mpd_invb *args)
{
    (void)pat;
    (void)args;
    /* serving no vm until told (VM_INIT), set before anything can be
     * received: a VM_INIT the listener served on another VP was undone
     * when this was done after the communication thread started (TSan) */
    atomic_store(&dist_home_vm, 0);
    mpd__cap_vm = UINT32_MAX;
    res_set_home_vm(UINT32_MAX);
    dist_serve_init();
    dist_comm_start();
    dist_failure_install();
    dist_term_install();
    if (dist_rank == 0) { /* the main vm: no VM_INIT comes here */
        atomic_store(&dist_home_vm, DVM(1));
        mpd__cap_vm = DVM(1);
        res_set_home_vm(DVM(1));
        dist_vms_note(1, 0);
        dist_serve_start();
        return 0;
    }
    opk_install_report();
    dist_serve_start();
    return 1;
}

/* Started by hand (./a.out), not by mpirun: run again under mpirun with
 * MPD_VMS processes (default 8), so that a distributed program runs as
 * any other -- the user types a.out, as with MPD 1.0.1 (which started its
 * execution manager itself).  MPD_VMS=1 runs it alone: no vm can be
 * created.  Without mpirun it also runs alone. */
static void relaunch(void)
{
    if (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") ||
        getenv("MPD_DIST_LAUNCHED"))
        return;
    const char *v = getenv("MPD_VMS");
    long n = v && *v ? strtol(v, NULL, 10) : 8;
    if (n <= 1 || n > 4096)
        return;
    static char cmd[1 << 16];
    int fd = open("/proc/self/cmdline", O_RDONLY);
    ssize_t len = fd >= 0 ? read(fd, cmd, sizeof cmd - 1) : -1;
    if (fd >= 0)
        close(fd);
    char exe[4096];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0 || el <= 0)
        return;
    exe[el] = 0;
    char *argv[1024], nbuf[16];
    int k = 0;
    snprintf(nbuf, sizeof nbuf, "%ld", n);
    argv[k++] = "mpirun";
    argv[k++] = "-q";
    argv[k++] = "--oversubscribe";
    argv[k++] = "-n";
    argv[k++] = nbuf;
    argv[k++] = exe;
    for (char *p = cmd + strlen(cmd) + 1; p < cmd + len && k < 1023; p += strlen(p) + 1)
        argv[k++] = p;
    argv[k] = NULL;
    setenv("MPD_DIST_LAUNCHED", "1", 1);
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid()); /* mpirun's, after exec */
    setenv("MPD_DIST_OUT", pid, 1);
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    fflush(NULL);
    execvp("mpirun", argv); /* no mpirun: run alone */
}

/* Pulled in by the linker (mpd --mpi links with -u mpd_dist_link): the
 * program is built for the distributed deployment. */
int mpd_dist_link;
__attribute__((constructor)) static void dist_install(void)
{
    relaunch();
    mpd__dist = &dist_ops;
}

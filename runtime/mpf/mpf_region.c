/* mpf_region.c: creating, attaching and laying out an MPF segment; its memory pools and robust locks. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpf_internal.h"

/* ---- lock-free stacks of message headers and data blocks (tagged against ABA) ---- */

static uint32_t stack_pop(mpf_t *m, _Atomic uint64_t *top, _Atomic int64_t *count)
{
    uint64_t old = atomic_load_explicit(top, memory_order_acquire);
    for (;;) {
        uint32_t off = (uint32_t)old;
        if (off == 0)
            return 0;
        /* The header may be popped and reused meanwhile; the tag makes the CAS fail then. */
        uint32_t next =
            atomic_load_explicit((_Atomic uint32_t *)MPF_AT(m, off), memory_order_relaxed);
        uint64_t nw = ((old >> 32) + 1) << 32 | next;
        if (atomic_compare_exchange_weak_explicit(top, &old, nw, memory_order_acquire,
                                                  memory_order_acquire)) {
            atomic_fetch_sub_explicit(count, 1, memory_order_relaxed);
            return off;
        }
    }
}

/* Push the chain first..last (already linked through their first word), n items. */
static void stack_push(mpf_t *m, _Atomic uint64_t *top, _Atomic int64_t *count, uint32_t first,
                       uint32_t last, int64_t n)
{
    uint64_t old = atomic_load_explicit(top, memory_order_relaxed);
    for (;;) {
        atomic_store_explicit((_Atomic uint32_t *)MPF_AT(m, last), (uint32_t)old,
                              memory_order_relaxed);
        uint64_t nw = ((old >> 32) + 1) << 32 | first;
        if (atomic_compare_exchange_weak_explicit(top, &old, nw, memory_order_release,
                                                  memory_order_relaxed))
            break;
    }
    atomic_fetch_add_explicit(count, n, memory_order_relaxed);
    mpf_region *r = m->r;
    if (r->send_waits) {
        atomic_fetch_add_explicit(&r->space_word, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&r->space_sleepers, memory_order_seq_cst) &&
            mpf_futex_wake_all(m, &r->space_word) == 0)
            mpf_futile_wake(m);
    }
}

uint32_t mpf_msg_alloc(mpf_t *m)
{
    uint32_t off = stack_pop(m, &m->r->msg_free, &m->r->n_msg_free);
    if (off)
        mpf_msg_reset(MPF_MSG(m, off));
    return off;
}

void mpf_blocks_free(mpf_t *m, uint32_t first)
{
    if (!first)
        return;
    uint32_t last = first;
    int64_t n = 1;
    for (uint32_t nx;
         (nx = atomic_load_explicit(&MPF_BLK(m, last)->next, memory_order_relaxed)) != 0; last = nx)
        n++;
    stack_push(m, &m->r->blk_free, &m->r->n_blk_free, first, last, n);
}

void mpf_msg_free(mpf_t *m, uint32_t off)
{
    mpf_msg *g = MPF_MSG(m, off);
    if (g->data)
        mpf_blocks_free(m, g->data);
    stack_push(m, &m->r->msg_free, &m->r->n_msg_free, off, off, 1);
}

int mpf_blocks_alloc(mpf_t *m, size_t len, uint32_t *first)
{
    uint32_t pay = mpf_block_payload(m->r), head = 0, prev = 0;
    for (size_t done = 0; done < len; done += pay) {
        uint32_t b = stack_pop(m, &m->r->blk_free, &m->r->n_blk_free);
        if (!b) {
            mpf_blocks_free(m, head);
            return -MPF_ENOSPACE;
        }
        atomic_store_explicit(&MPF_BLK(m, b)->next, 0, memory_order_relaxed);
        if (prev)
            atomic_store_explicit(&MPF_BLK(m, prev)->next, b, memory_order_relaxed);
        else
            head = b;
        prev = b;
    }
    *first = head;
    return 0;
}

/* ---- futex waiting (process-shared in a shm segment, private otherwise) ---- */

void mpf_futex_wait_ns(mpf_t *m, _Atomic uint32_t *word, uint32_t observed, long long ns)
{
    int op = m->shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE;
    /* A bounded sleep keeps a waiter alive even if a waker died between bump and wake. */
    if (ns <= 0 || ns > 200 * 1000 * 1000)
        ns = 200 * 1000 * 1000;
    struct timespec ts = {0, (long)ns};
    syscall(SYS_futex, (uint32_t *)word, op, observed, &ts, NULL, 0);
}

void mpf_futex_wait(mpf_t *m, _Atomic uint32_t *word, uint32_t observed)
{
    mpf_futex_wait_ns(m, word, observed, 0);
}

int mpf_futex_wake_all(mpf_t *m, _Atomic uint32_t *word)
{
    int op = m->shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE;
    return (int)syscall(SYS_futex, (uint32_t *)word, op, 0x7fffffff, NULL, NULL, 0);
}

/* A count of sleepers stuck by a participant that died asleep makes every
 * later send pay a futex call that wakes nobody.  Registration races give a
 * futile wake now and then; a run of them asks for a reap, which uncounts the
 * dead.  Kept per segment, approximate (relaxed counter). */
void mpf_futile_wake(mpf_t *m)
{
    if (!m->shared)
        return;
    static _Thread_local unsigned futile;
    if (++futile % 64 == 0)
        atomic_store_explicit(&m->r->reap_pending, 1, memory_order_relaxed);
}

void mpf_space_wait(mpf_t *m, int pid, uint32_t observed)
{
    mpf_region *r = m->r;
    mpf_proc *p = mpf_proc_at(m, (uint32_t)pid);
    atomic_fetch_add_explicit(&r->space_sleepers, 1, memory_order_seq_cst);
    atomic_store_explicit(&p->space_asleep, 1,
                          memory_order_relaxed); /* the reaper uncounts us if we die */
    if (atomic_load_explicit(&r->space_word, memory_order_seq_cst) == observed)
        mpf_futex_wait(m, &r->space_word, observed);
    if (atomic_exchange_explicit(&p->space_asleep, 0, memory_order_relaxed))
        atomic_fetch_sub_explicit(&r->space_sleepers, 1, memory_order_relaxed);
}

/* A process counts as dead once it no longer exists or is a zombie. */
int mpf_os_pid_alive(int32_t pid)
{
    if (pid <= 0)
        return 0;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 0;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1; /* no /proc: trust kill() */
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/* ---- layout ---- */

static size_t align_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

typedef struct layout {
    size_t procs, lnvcs, conns, waiters, n_waiters, msgs, blocks, size;
} layout;

static int compute_layout(const mpf_options *o, layout *L)
{
    size_t s = align_up(sizeof(mpf_region), MPF_CACHE);
    L->procs = s;
    s = align_up(s + (size_t)o->max_processes * sizeof(mpf_proc), MPF_CACHE);
    L->lnvcs = s;
    s = align_up(s + (size_t)o->max_lnvcs * sizeof(mpf_lnvc), MPF_CACHE);
    L->conns = s;
    s = align_up(s + (size_t)o->max_lnvcs * o->max_processes * sizeof(mpf_conn), MPF_CACHE);
    /* One waiter slot per thread blocked in an FCFS line: two per process id
     * and some spare (beyond that, receives wait unordered). */
    L->waiters = s;
    L->n_waiters = 2 * (size_t)o->max_processes + 16;
    s = align_up(s + L->n_waiters * sizeof(mpf_waiter), MPF_CACHE);
    L->msgs = s;
    s = align_up(s + (size_t)o->max_messages * MPF_MSG_NODE, MPF_CACHE);
    L->blocks = s;
    s += align_up(o->pool_bytes, o->data_block);
    L->size = align_up(s, 4096);
    return L->size < 0xfff00000u ? 0 : -MPF_EINVAL; /* offsets are 32-bit */
}

static void format_region(mpf_t *m, const mpf_options *o, const layout *L)
{
    mpf_region *r = m->r;
    r->version = MPF_VERSION;
    r->shared = (uint32_t)m->shared;
    r->size = L->size;
    r->max_lnvcs = (uint32_t)o->max_lnvcs;
    r->max_procs = (uint32_t)o->max_processes;
    r->n_msgs = (uint32_t)o->max_messages;
    r->block_size = (uint32_t)o->data_block;
    r->n_blocks = (uint32_t)(align_up(o->pool_bytes, o->data_block) / o->data_block);
    r->max_message = (uint32_t)o->max_message;
    r->send_waits = o->send_waits != 0;
    while ((1u << r->id_shift) < r->max_lnvcs)
        r->id_shift++;
    r->off_procs = (uint32_t)L->procs;
    r->off_lnvcs = (uint32_t)L->lnvcs;
    r->off_conns = (uint32_t)L->conns;
    r->off_waiters = (uint32_t)L->waiters;
    r->n_waiters = (uint32_t)L->n_waiters;
    r->off_msgs = (uint32_t)L->msgs;
    r->off_blocks = (uint32_t)L->blocks;
    /* Free stacks: link every header / block, lowest address on top. */
    for (uint32_t i = 0; i < r->n_msgs; i++) {
        uint32_t off = r->off_msgs + i * MPF_MSG_NODE;
        atomic_store(&MPF_MSG(m, off)->next, i + 1 < r->n_msgs ? off + MPF_MSG_NODE : 0);
    }
    atomic_store(&r->msg_free, r->n_msgs ? r->off_msgs : 0);
    atomic_store(&r->n_msg_free, r->n_msgs);
    for (uint32_t i = 0; i < r->n_blocks; i++) {
        uint32_t off = r->off_blocks + i * r->block_size;
        atomic_store(&MPF_BLK(m, off)->next, i + 1 < r->n_blocks ? off + r->block_size : 0);
    }
    atomic_store(&r->blk_free, r->n_blocks ? r->off_blocks : 0);
    atomic_store(&r->n_blk_free, r->n_blocks);
    atomic_store_explicit(&r->magic, MPF_MAGIC, memory_order_release);
}

static int env_int(const char *name, int dflt)
{
    const char *s = getenv(name);
    return s && *s ? atoi(s) : dflt;
}

static int fill_defaults(mpf_options *o)
{
    if (!o->max_lnvcs)
        o->max_lnvcs = 64;
    if (!o->max_processes)
        o->max_processes = 64;
    if (!o->max_message)
        o->max_message = 65536;
    if (!o->pool_bytes)
        o->pool_bytes = 16u << 20;
    if (!o->max_messages)
        o->max_messages = 16384;
    if (!o->data_block)
        o->data_block = 4096;
    if (!o->spin)
        o->spin = env_int("MPF_SPIN", 2000);
    /* Offsets in the segment are 32-bit: larger sizes must not wrap to a tiny pool. */
    if (o->pool_bytes > 0xfff00000u || o->data_block > 0x10000000u)
        return -MPF_EINVAL;
    if (o->max_lnvcs < 0 || o->max_processes < 0 || o->max_messages < o->max_lnvcs + 2 ||
        o->spin < 0 || o->max_lnvcs > 65536 || o->max_processes > 65536 || o->data_block < 64 ||
        o->data_block % 8 || o->max_message > 0x7fffffff ||
        (o->wait != MPF_WAIT_THREADS && o->wait != MPF_WAIT_LWP) ||
        (o->wait == MPF_WAIT_LWP && o->shm_name))
        return -MPF_EINVAL;
    /* The pool must hold one longest message, else sending it could only fail (or wait forever). */
    size_t pay = o->data_block - MPF_BLK_HDR;
    if (o->max_message > MPF_INLINE &&
        (o->max_message + pay - 1) / pay > (o->pool_bytes + o->data_block - 1) / o->data_block)
        return -MPF_EINVAL;
    return 0;
}

static mpf_t *new_handle(void)
{
    return calloc(1, sizeof(mpf_t));
}

static int shm_path(const char *name, char *out, size_t cap)
{
    if (!name || !*name)
        return -MPF_EINVAL;
    const char *n = name[0] == '/' ? name + 1 : name;
    if (!*n || strchr(n, '/') || strlen(n) + 2 > cap)
        return -MPF_EINVAL;
    snprintf(out, cap, "/%s", n);
    return 0;
}

int mpf_init_ex(mpf_t **out, const mpf_options *opt)
{
    if (!out)
        return -MPF_EINVAL;
    *out = NULL;
    mpf_options o = opt ? *opt : (mpf_options){0};
    int rc = fill_defaults(&o);
    layout L;
    if (rc || (rc = compute_layout(&o, &L)))
        return rc;
    mpf_t *m = new_handle();
    if (!m)
        return -MPF_ESYS;
    m->shared = o.shm_name != NULL;
    m->spin = o.spin;
    m->wait = o.wait;
    m->size = L.size;
    void *p;
    if (!m->shared) {
        p = mmap(NULL, L.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    } else {
        char path[256];
        if ((rc = shm_path(o.shm_name, path, sizeof path)))
            goto fail;
        if (o.replace)
            shm_unlink(path);
        int fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0) {
            rc = errno == EEXIST ? -MPF_EEXIST : -MPF_ESYS;
            goto fail;
        }
        if (ftruncate(fd, (off_t)L.size) != 0) {
            int e = errno;
            close(fd);
            shm_unlink(path);
            errno = e;
            rc = -MPF_ESYS;
            goto fail;
        }
        p = mmap(NULL, L.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED)
            shm_unlink(path);
    }
    if (p == MAP_FAILED) {
        rc = -MPF_ESYS;
        goto fail;
    }
    m->base = p;
    m->r = p;
    format_region(m, &o, &L);
    if (m->wait == MPF_WAIT_LWP && (rc = mpf_lwp_setup(m))) {
        munmap(p, L.size);
        goto fail;
    }
    *out = m;
    return 0;
fail:
    free(m);
    return rc;
}

int mpf_init(mpf_t **out, int max_lnvcs, int max_processes)
{
    if (max_lnvcs <= 0 || max_processes <= 0)
        return -MPF_EINVAL;
    mpf_options o = {.max_lnvcs = max_lnvcs, .max_processes = max_processes};
    return mpf_init_ex(out, &o);
}

int mpf_attach(mpf_t **out, const char *shm_name)
{
    if (!out)
        return -MPF_EINVAL;
    *out = NULL;
    char path[256];
    int rc = shm_path(shm_name, path, sizeof path);
    if (rc)
        return rc;
    int fd = shm_open(path, O_RDWR, 0);
    if (fd < 0)
        return errno == ENOENT ? -MPF_ENOENT : -MPF_ESYS;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -MPF_ESYS;
    }
    if ((size_t)st.st_size < sizeof(mpf_region)) {
        close(fd);
        return -MPF_EFORMAT;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -MPF_ESYS;
    mpf_region *r = p;
    /* The creator writes the magic last; give it a moment if we raced it. */
    for (int i = 0; i < 1000 && atomic_load_explicit(&r->magic, memory_order_acquire) != MPF_MAGIC;
         i++)
        usleep(1000);
    if (atomic_load_explicit(&r->magic, memory_order_acquire) != MPF_MAGIC ||
        r->version != MPF_VERSION || r->size != (uint64_t)st.st_size || !r->shared) {
        munmap(p, (size_t)st.st_size);
        return -MPF_EFORMAT;
    }
    mpf_t *m = new_handle();
    if (!m) {
        munmap(p, (size_t)st.st_size);
        return -MPF_ESYS;
    }
    m->base = p;
    m->r = r;
    m->size = (size_t)st.st_size;
    m->shared = 1;
    m->spin = env_int("MPF_SPIN", 2000);
    m->wait = MPF_WAIT_THREADS;
    *out = m;
    return 0;
}

int mpf_finish(mpf_t *m)
{
    if (!m)
        return -MPF_EINVAL;
    mpf_lwp_free(m);
    munmap(m->base, m->size);
    free(m);
    return 0;
}

int mpf_unlink(const char *shm_name)
{
    char path[256];
    int rc = shm_path(shm_name, path, sizeof path);
    if (rc)
        return rc;
    if (shm_unlink(path) != 0)
        return errno == ENOENT ? -MPF_ENOENT : -MPF_ESYS;
    return 0;
}

int mpf_stats_get(mpf_t *m, mpf_stats *st)
{
    if (!m || !st)
        return -MPF_EINVAL;
    memset(st, 0, sizeof *st);
    for (uint32_t i = 0; i < m->r->max_lnvcs; i++) {
        mpf_lnvc *l = mpf_lnvc_at(m, i);
        mpf_lock_lnvc(m, l);
        if (l->state == LNVC_LIVE) {
            st->lnvcs++;
            st->messages_queued +=
                (int)(atomic_load_explicit(&l->next_seq, memory_order_relaxed) - l->front_seq);
        }
        mpf_unlock_lnvc(m, l);
    }
    st->free_messages = (size_t)atomic_load(&m->r->n_msg_free);
    st->free_blocks = (size_t)atomic_load(&m->r->n_blk_free);
    st->recoveries = (unsigned long)atomic_load(&m->r->recoveries);
    return 0;
}

const char *mpf_strerror(int err)
{
    static const char *const msg[] = {
        [MPF_OK] = "success",
        [MPF_EINVAL] = "invalid argument",
        [MPF_EBADPID] = "process id out of range",
        [MPF_EBADID] = "no such conversation (unknown or closed LNVC id)",
        [MPF_ENOTCONN] = "process is not connected to the conversation in that role",
        [MPF_EALREADY] = "process already has that connection",
        [MPF_EPROTOCOL] = "process already receives on this conversation with the other protocol",
        [MPF_ENAME] = "conversation name empty or too long",
        [MPF_ENOLNVC] = "too many conversations (max_lnvcs reached)",
        [MPF_ENOSPACE] = "message memory exhausted",
        [MPF_ETOOLONG] = "message longer than the segment's max_message",
        [MPF_EMSGSIZE] = "receive buffer too small for the next message (it stays queued)",
        [MPF_EAGAIN] = "no message waiting",
        [MPF_ECLOSED] = "connection closed while waiting",
        [MPF_EBUSYPID] = "process id in use by another live OS process",
        [MPF_EEXIST] = "shared segment already exists",
        [MPF_ENOENT] = "no such shared segment",
        [MPF_EFORMAT] = "not an MPF segment of this version",
        [MPF_ESYS] = "system call failed",
        [MPF_ENOTSUP] = "not supported in this deployment",
        [MPF_ECORRUPT] = "segment state unrecoverable after a participant died",
        [MPF_ENOSENDERS] = "no sender left on the conversation and nothing to read",
        [MPF_ETIMEDOUT] = "no message within the time limit",
    };
    unsigned e = err < 0 ? 0u - (unsigned)err : (unsigned)err; /* INT_MIN has no int negation */
    if (e >= sizeof msg / sizeof msg[0] || !msg[e])
        return "unknown MPF error";
    return msg[e];
}

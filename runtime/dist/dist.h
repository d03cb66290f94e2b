/* dist.h: the distributed deployment's private interface (libmpddist.a).
 * Design: docs/distributed.md.  Each MPI rank of the job is one process
 * that serves at most one MPD virtual machine at a time; rank 0 serves
 * the main vm (vm 1) and keeps the table of vms.  One communication
 * thread per process owns the receiving side of MPI; processes send
 * directly (MPI_THREAD_MULTIPLE). */
#ifndef MPD_DIST_H
#define MPD_DIST_H

#include <stddef.h>
#include <stdint.h>
#include "lang/opint.h"
#include "lang/disthook.h"

/* A vm's number n is DVM(n) in capabilities: the high bit keeps them
 * apart from the embedded default's, where vm 1 is this process -- the
 * inline call fast path (mpd/abi/ops.h) takes a capability saying 1 as local,
 * which in a distributed program holds on no process. */
#define DVM(n) (0x80000000u | (uint32_t)(n))
#define DVM_NUM(v) ((uint32_t)(v)&0x7fffffffu)

/* ---- wire.c: messages ------------------------------------------------- */

#define DMSG_MAGIC 0x4d504431u /* "MPD1" */
#define DMSG_MAX (256u << 20)  /* larger messages are refused */

enum dmsg_type {
    /* basic messages: counted by the termination detection (term.c) */
    DM_CALL = 1,   /* invocation, a reply expected: payload FILE, block */
    DM_SEND,       /* invocation, no reply */
    DM_REPLY,      /* answer to a request: status, payload */
    DM_CREATE,     /* create pat(args) on dst_vm: payload SYMBOL, block */
    DM_DESTROY,    /* destroy resource cap on dst_vm */
    DM_DESTROY_VM, /* destroy dst_vm */
    DM_PENDING,    /* ?cap */
    DM_VM_CREATE,  /* to rank 0: a new vm; payload HOST ("" any), aux machine */
    DM_VM_INIT,    /* rank 0 to a free rank: serve vm aux, machine line */
    DM_VM_FREED,   /* to rank 0: this rank's vm was destroyed */
    DM_WHERE,      /* to rank 0: the rank of vm aux */
    DM_STOP,       /* to rank 0: stop(status) */
    DM_NBASIC,
    /* control messages: not counted */
    DM_OUTPUT = 32, /* to rank 0: bytes written on stdout (aux 1) / stderr (aux 2) */
    DM_PROBE,       /* rank 0 to all: termination wave aux */
    DM_PROBE_ACK,   /* answer: status = idle, tag = sent << 32 | received */
    DM_IDLE,        /* to rank 0: this process became idle */
    DM_EXIT,        /* rank 0 to all: end (aux 1: report blocked processes first;
                       status: 1 + the rank whose death ends the run, tag its vm) */
    DM_DONE,        /* answer to EXIT: all output sent, finalizing */
    DM_ABORT,       /* to rank 0: this process ends the program with status */
    DM_DEAD,        /* to rank 0: the process of rank aux (this host) has died;
                       status 1: aux (the sender) ends by its launcher's SIGTERM */
    DM_TYPE_END
};

typedef struct dmsg {
    uint32_t magic;
    uint16_t type;
    uint16_t kind;   /* invocations: MPD_INV_CALL / MPD_INV_SEND */
    uint32_t len;    /* the whole message, header included */
    uint32_t dst_vm; /* the vm addressed (0: the process) */
    uint32_t src_vm;
    int32_t status; /* replies: 0 or an error (payload: its message) */
    uint64_t tag;   /* the request a reply answers */
    mpd_cap cap;    /* the capability invoked, created, destroyed */
    int32_t line;   /* the invoking statement's line */
    uint32_t aux;   /* per type: offset of the block in the payload, ... */
    int32_t prio;   /* the sending process's priority: its remote
                           processes get it, as local ones would */
    uint32_t blen;  /* CALL, SEND: a block this large is not in the payload
                       (which ends at aux) but follows as a message of its
                       own (tag DIST_TAG_BLOCK) from the same sender: it
                       is received straight into its invocation block */
} dmsg;

/* A block at least this large travels as a message of its own (blen):
 * neither side copies it between the invocation block and the message. */
#define DIST_BLOCK_APART 16384
/* A send's large argument at least this large (mpd_send_gather) goes from
 * where it is, as a message of its own (a piece): the block is not built
 * around it first (dmsg.status = the number of pieces; dist_pieces_check).
 * A string piece is its header and its length's characters, not its
 * maximum's: the rest of its room in the block (the piece's gap) is not
 * sent, and not written by the receiver either. */
#define DIST_PIECE_APART 4096
#define DIST_PIECES_MAX 64
const char *dist_pieces_check(const dmsg *m);

#define DMSG_PAYLOAD(m) ((char *)(m) + sizeof(dmsg))
static inline uint32_t dmsg_plen(const dmsg *m)
{
    return m->len - (uint32_t)sizeof(dmsg);
}

/* A new message of `type` with room for plen payload bytes (zeroed). */
dmsg *dmsg_new(int type, size_t plen);
/* The same with the payload left uninitialized: the caller fills all of
 * it (an invocation's block: no zeroing of what is copied over next). */
dmsg *dmsg_new_raw(int type, size_t plen);
/* Frees a message built by dmsg_new(_raw) (or a received one): its
 * buffer may serve the thread's next message. */
void dmsg_free(dmsg *m);
/* Checks a message as received (n bytes from rank src): NULL if it is
 * well formed, else what is wrong with it. */
const char *dmsg_check(const void *buf, size_t n);
/* The NUL-terminated string at the start of the payload, which must end
 * before `limit` bytes of payload: NULL if there is none. */
const char *dmsg_str(const dmsg *m, uint32_t limit);
/* A message that cannot be trusted: reported on stderr, never used. */
void dmsg_reject(int src, const char *why);

/* ---- comm.c: the communication thread, sending, requests ---------------- */

extern int dist_rank, dist_size;
extern char (*dist_hosts)[64]; /* host name of each rank */

void dist_comm_start(void); /* MPI up, thread started; returns when ready */
/* Sends m to rank (m is freed); counts basic messages. */
void dist_send(int rank, dmsg *m);
/* The same for an invocation whose block (blk, m->blen bytes) goes apart. */
void dist_send_block(int rank, dmsg *m, const void *blk);
/* The communication thread's own control messages (never waits for the
 * lock a process may hold in a long send). */
void dist_send_control(int rank, dmsg *m);
/* Sends request m to rank and waits (a visible wait at F, L) for its
 * reply, which the caller frees. */
dmsg *dist_request(int rank, dmsg *m, const char *F, int L);
/* An invocation in pieces: m (its table and inline bytes built), then the
 * k pieces (src, len) as messages of their own. */
void dist_send_pieces(int rank, dmsg *m, const void *const *src, const uint32_t *len, int k);
/* The same with a block sent apart (blk, m->blen bytes; NULL: none). */
dmsg *dist_request_block(int rank, dmsg *m, const void *blk, const char *F, int L);
/* The same for a call: a reply of status 0 with exactly into_n bytes of
 * payload is copied into `into` by the receiver and NULL returned; any
 * other reply is returned as dist_request's. */
dmsg *dist_request_into(int rank, dmsg *m, const void *blk, void *into, uint32_t into_n,
                        const char *F, int L);
/* A received message handed to handle() lives in the receive buffer:
 * what must outlive the handling is kept (a copy; a message already of
 * its own is returned as is), the rest released (freed unless it is the
 * receive buffer). */
dmsg *dist_msg_keep(dmsg *m);
void dist_msg_release(dmsg *m);
/* An interned copy of a file name (invocations keep it). */
const char *dist_intern(const char *s);

/* Counts of basic messages, for the termination detection. */
extern _Atomic uint64_t dist_nsent, dist_nrecv;

/* The exit sequence: every process ends, rank 0 last with this status.
 * report: the other vms report their blocked processes first (program
 * end).  Never returns. */
_Noreturn void dist_exit_all(int status, int report);

/* ---- serve.c: requests from other vms ------------------------------------ */

void dist_serve_init(void);  /* before dist_comm_start */
void dist_serve_start(void); /* the listener process */
/* whoever receives: hand it over (blk: its block, received apart, or NULL) */
void dist_deliver_inbound(dmsg *m, int src, mpd_invb *blk);
/* a VP with no process running: deliver a call or send to its op at once
 * (1), or leave it to the listener (0) */
int dist_serve_direct(dmsg *m, int src, mpd_invb *blk);

extern _Atomic uint32_t dist_home_vm; /* the vm this process serves (0: none) */
extern int dist_home_machine;

/* ---- vms.c: vm numbers and ranks ----------------------------------------- */

int dist_rank_of_vm(uint32_t vm, const char *F, int L); /* -1: no such vm */
void dist_vms_note(uint32_t vm, int rank);
/* rank 0: a free rank for a new vm on host (NULL/"" any; prefer near);
 * error message in *why when none */
int dist_vms_pick(const char *host, int near_rank, const char **why);
uint32_t dist_vms_assign(int rank);     /* rank 0: the new vm's number */
void dist_vms_freed(int rank);          /* rank 0 */
int dist_vms_live(int *ranks, int max); /* rank 0: ranks with a vm, newest first */
uint32_t dist_vms_of_rank(int rank);    /* rank 0: its vm (0: none); no lock */

/* ---- failure.c: a process that dies outright ------------------------------- */

extern int *dist_pids;
extern char (*dist_real_hosts)[64];
void dist_failure_install(void);        /* after dist_comm_start */
void dist_failure_dead(int rank);       /* rank 0: rank died: report, end */
void dist_failure_write_report(void);   /* rank 0: that report, once */
void dist_failure_terminated(int rank); /* rank 0: rank ends by mpirun's SIGTERM */
/* not rank 0: rank (serving vm) died: this process's requests to it fail */
void dist_failure_requests_failed(int rank, uint32_t vm);
/* the statement of this process's oldest request waiting for rank (NULL: none) */
const char *dist_request_waiting_on(int rank, int *L);
/* comm.c, before the run starts: rank 0's TCP lifeline to the processes
 * of other hosts (bcast: MPI_Bcast of n bytes from rank 0) */
void dist_failure_lifeline(void (*bcast)(void *buf, int n));
/* rank 0: end the run with status, sending nothing to the dead rank */
void dist_exit_without(int dead_rank, uint32_t dead_vm, int status);
/* the exit sequence has begun: processes end now, deaths are expected */
int dist_exit_started(void);

/* ---- term.c: termination detection ---------------------------------------- */

void dist_term_install(void);
void dist_term_on_probe(dmsg *m, int src); /* comm thread */
void dist_term_on_ack(dmsg *m, int src);   /* comm thread, rank 0 */
void dist_term_on_idle(int src);           /* comm thread, rank 0 */
void dist_term_poll(void);                 /* comm thread: due work */
extern _Atomic int dist_finish;            /* let the core end this process */
extern _Atomic int dist_ended;             /* rank 0: the program ended (not stop, abort) */

/* ---- remote.c -------------------------------------------------------------- */

extern const mpd_dist_ops dist_ops;
/* Ship ib's parameters as an invocation of c; CALL: the reply's block
 * (results) is copied back into ib. */
void dist_invoke(const char *F, int L, mpd_cap c, mpd_invb *ib, int kind);

#endif

/* mpd/abi/ops.h: the ABI for MPD operations, invocations, input statements, co,
 * resources and globals -- what the compiler's generated C calls.
 *
 * ------------------------------------------------------------------------
 * Concepts
 * ------------------------------------------------------------------------
 * object      A resource instance, a global instance, or a block of local
 *             ops (ops declared inside a proc).  Objects live in a table and
 *             are named by (vm, slot, generation); each object owns an array
 *             of mpd_op, indexed from 0 (op arrays occupy consecutive
 *             indices, row-major, lower bound mapped to 0).
 * capability  mpd_cap = (vm, object id, op index).  Never a pointer: it can
 *             be copied as bytes, compared, and sent to another address
 *             space.  A resource capability is an mpd_cap whose idx is
 *             MPD_CAP_RES.  The all-zero value is an *uninitialised*
 *             capability ("invalid operation capability" when used);
 *             mpd_cap_null and mpd_cap_noop are the two special values.
 * op          How an operation is implemented, decided when it is declared:
 *               MPD_OPK_PROC   by a proc (a C function generated from it)
 *               MPD_OPK_INPUT  by input statements (in/receive): a queue
 *               (semaphores are input ops whose queue is only a count)
 * invocation  One contiguous invocation block (mpd_invb header followed by
 *   block     the parameters, the return value last).  Generated code
 *             declares one struct per op type:
 *                 struct inv_f { mpd_invb h; int x; int y; int ret; };
 *             and sets h.size = sizeof(struct inv_f).  A block holds no
 *             pointer into the invoker's stack (except `ref` parameters), so
 *             the runtime may copy it as bytes.  call passes the invoker's
 *             block (results are written back into it); send hands the
 *             runtime a block that it copies when it must outlive the call.
 * file, line  Every function that can fail or block takes the MPD source
 *             position (F, L below): errors print MPD's "RTS abort: file F,
 *             line L:" and blocked processes are reported at that line.
 *
 * All invocations go through mpd_invoke() (mpd_call/mpd_send are the two
 * wrappers), which resolves the capability and routes the invocation; the
 * only thing it does not handle is the compiler's own fast path: a call of
 * a proc of the *same* resource whose op is MPD_OP_DIRECT may be compiled
 * as a plain C call of the proc function.
 *
 * Thread safety: everything here may be called from any process on any
 * virtual processor (MPD_PARALLEL=N).
 *
 * Worked examples of generated code for each construct are in docs/ops.md.
 */
#ifndef MPD_OPS_H
#define MPD_OPS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "mpd/rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------- */
/* Capabilities                                                            */
/* ---------------------------------------------------------------------- */

typedef struct mpd_cap {
    uint32_t vm;  /* virtual machine number (1 = this one); 0 = special */
    uint32_t idx; /* op index in the object, or MPD_CAP_RES             */
    uint64_t obj; /* (generation << 32) | slot; 0/1/2 = invalid/null/noop */
} mpd_cap;

#define MPD_CAP_RES 0xffffffffu /* idx of a resource capability */
#define MPD_CAP_VM 0xfffffffeu  /* idx of a virtual machine capability */
#define MPD_CAP_OBJ_NULL 1u
#define MPD_CAP_OBJ_NOOP 2u

#define MPD_CAP_INVALID_INIT                                                                       \
    {                                                                                              \
        0, 0, 0                                                                                    \
    }
#define MPD_CAP_NULL_INIT                                                                          \
    {                                                                                              \
        0, 0, MPD_CAP_OBJ_NULL                                                                     \
    }
#define MPD_CAP_NOOP_INIT                                                                          \
    {                                                                                              \
        0, 0, MPD_CAP_OBJ_NOOP                                                                     \
    }
extern const mpd_cap mpd_cap_null, mpd_cap_noop;

static inline int mpd_cap_eq(mpd_cap a, mpd_cap b)
{
    return a.vm == b.vm && a.idx == b.idx && a.obj == b.obj;
}
static inline int mpd_cap_is_null(mpd_cap c)
{
    return c.vm == 0 && c.obj == MPD_CAP_OBJ_NULL;
}
static inline int mpd_cap_is_noop(mpd_cap c)
{
    return c.vm == 0 && c.obj == MPD_CAP_OBJ_NOOP;
}

/* The capability for op `i` of resource capability `rc` (rc.foo, rc.a[i]).
 * Null/noop resource capabilities give null/noop op capabilities. */
static inline mpd_cap mpd_cap_op_of(mpd_cap rc, uint32_t i)
{
    mpd_cap c = rc;
    if (rc.vm != 0)
        c.idx = i;
    return c;
}

/* ---------------------------------------------------------------------- */
/* Invocation blocks                                                       */
/* ---------------------------------------------------------------------- */

typedef struct mpd_op mpd_op;
typedef struct mpd_co mpd_co;

/* Header of every invocation block.  Generated code sets `size` (and
 * `co_arm`/`co_idx` for co); every other field belongs to the runtime. */
typedef struct mpd_invb {
    uint32_t size;                /* whole block in bytes, header included */
    uint8_t kind;                 /* MPD_INV_CALL / MPD_INV_SEND            */
    uint8_t state;                /* runtime bookkeeping                    */
    uint8_t pins;                 /* in-statement scanners inspecting it    */
    uint8_t flags;                /* MPD_INVF_*                             */
    uint32_t co_arm;              /* co: arm number (set by generated code) */
    uint32_t co_idx;              /* co: quantifier instance (generated)    */
    mpd_op *op;                   /* the op it was delivered to             */
    struct mpd_invb *next, *prev; /* op queue links                     */
    uint64_t seq;                 /* arrival order (FIFO across arms)       */
    void *done;                   /* who to tell on completion              */
    struct mpd_invb *orig;        /* forward: the block to copy results to  */
    mpd_co *co;                   /* co statement it belongs to, if any     */
    const char *file;             /* invoking statement (for errors)        */
    int line;
    uint32_t _pad;
} mpd_invb;

enum { MPD_INV_CALL = 1, MPD_INV_SEND = 2 };

/* The block of an op without parameters or result. */
#ifndef MPD_INV_mpd_inv_none
#define MPD_INV_mpd_inv_none
struct mpd_inv_none {
    mpd_invb h;
};
#endif

/* Start of the parameters of block `ib` (they follow the header). */
#define MPD_INV_ARGS(ib) ((void *)((mpd_invb *)(ib) + 1))

/* ---------------------------------------------------------------------- */
/* Objects, resources and globals                                          */
/* ---------------------------------------------------------------------- */

typedef struct mpd_res mpd_res;

/* The function generated for a proc.  `self` is the instance it belongs to,
 * `ib` its invocation block (parameters follow the header).  It returns
 * when the proc ends; the runtime then completes the invocation. */
typedef void (*mpd_procfn)(mpd_res *self, mpd_invb *ib);

/* Resource pattern: one static const per resource or global. */
typedef struct mpd_respat {
    const char *name; /* "server"                                  */
    size_t size;      /* sizeof the instance struct; it begins
                                   with an mpd_res                           */
    uint32_t nops;    /* ops in its table: spec ops first, in spec
                                   order, so that capabilities work across
                                   separately compiled bodies                */
    unsigned flags;   /* MPD_RES_GLOBAL | MPD_RES_SPEC_OPS(n)      */
    /* Initial code.  Runs as a new process named "<name>.body".  `args` is
     * the creation block (resource parameters after the header).  It
     * declares the ops (mpd_op_proc/input/sem), runs the body, starts the
     * `process`es (mpd_send to their ops) and returns. */
    void (*init)(mpd_res *self, mpd_invb *args);
    void (*final)(mpd_res *self); /* final code, or NULL                     */
    const char *file;             /* source file, for messages                 */
} mpd_respat;

enum { MPD_RES_GLOBAL = 1 };
/* The first n ops of the table are the spec's (exported).  destroy warns
 * about processes blocked on the body's semaphores only, as MPD 1.0.1 did:
 * it implemented exported semaphores as general ops. */
#define MPD_RES_SPEC_OPS(n) ((unsigned)(n) << 8)
#define MPD_RES_SPEC_NOPS(flags) ((uint32_t)((flags) >> 8))

/* Runtime header at the start of every instance.  Generated code only reads
 * `ops` (its op table) and passes the instance around. */
struct mpd_res {
    const mpd_respat *pat;
    mpd_op *ops; /* nops entries                             */
    uint64_t id; /* object id (generation << 32 | slot)      */
    void *rt;    /* runtime-private state                    */
    uint32_t nops;
    uint32_t nproc; /* runtime-private: its live processes, and
                                   MPD__RES_KILLED once destroyed (lang/
                                   reclaim.c)                               */
};
#define MPD__RES_KILLED 0x80000000u

/* create r(args): runs r's initial code in a new process and waits until it
 * ends or replies; returns the resource capability.  `args` is copied (may be
 * NULL if there are no parameters). */
mpd_cap mpd_create(const char *F, int L, const mpd_respat *pat, mpd_invb *args);

/* destroy rc: runs the final code (in a new process, "<name>.final"), kills
 * the processes of the instance, purges its ops.  Never returns when a
 * process destroys its own resource.  Null and noop capabilities: no-op. */
void mpd_destroy(const char *F, int L, mpd_cap rc);

/* import g: creates the global on first import (and waits for its initial
 * code to end or reply); returns the instance, for access to its variables.
 * Globals are finalised at program end, importers first. */
mpd_res *mpd_global(const char *F, int L, const mpd_respat *pat);

/* Virtual machines.  A virtual machine is an address space of its own in
 * MPD's model: it has its own instance of each global, and destroying it
 * destroys everything on it.  Here every virtual machine lives in this one
 * OS process (the `on host` placement of create vm() is not honoured): a
 * capability for vm n is { n, MPD_CAP_VM, 3 }; the program starts on vm 1.
 *
 * create vm() [on machine]: a new, empty virtual machine, said to be on
 * physical machine `machine` (-1: the one `self`'s vm is on; the program
 * starts on machine 0).  Machine numbers are only names here. */
mpd_cap mpd_vm_create(const char *F, int L, int machine, mpd_res *self);
/* myvm(), mymachine(): the virtual machine instance `self` lives on, and
 * the number of the physical machine that vm was created on. */
mpd_cap mpd_myvm(mpd_res *self);
int mpd_mymachine(mpd_res *self);
/* locate(n, host) and create vm() on "host": mpd/abi/lang.h. */
/* create r(args) [on vm]: as mpd_create, on virtual machine *vm, or (vm
 * NULL) on the one `self` (the creating instance) lives on. */
mpd_cap mpd_create_on(const char *F, int L, const mpd_respat *pat, mpd_invb *args,
                      const mpd_cap *vm, mpd_res *self);
/* import g from instance `self`: the instance of g on self's virtual
 * machine, created by the first importer there. */
mpd_res *mpd_global_at(const char *F, int L, const mpd_respat *pat, mpd_res *self);
/* mpd_destroy of a virtual machine capability destroys the vm: the
 * resources on it, oldest first (their final code runs), then its globals,
 * importers first.  `destroy v` of an expression of type `cap vm` is
 * mpd_vm_destroy: a null one aborts ("attempting to destroy null vm"),
 * where a null resource capability is ignored. */
void mpd_vm_destroy(const char *F, int L, mpd_cap vm);

/* myresource(): generated code should use mpd_rescap_of(self) -- self is
 * always at hand and is right even in a proc called directly (on the
 * caller's stack, from another resource's process).  mpd_myresource()
 * answers for the running *process* (its body, procs run as processes,
 * final code), for C code that has no self. */
mpd_cap mpd_myresource(void);
/* The instance the running process belongs to (NULL outside any). */
mpd_res *mpd_self_res(void);

/* The source lines of the procs and procedures of one component, so that
 * the blocked-process report can name the proc a process is blocked in
 * when that proc was called directly (it runs in its caller's process, as
 * MPD 1.0.1 names it then: "R.f").  Generated code registers one list per
 * component from a constructor; nothing is done per call. */
typedef struct mpd_procspan {
    int lo, hi;       /* first and last line                      */
    const char *name; /* "R.f"                                    */
} mpd_procspan;
typedef struct mpd_procspans {
    const char *file; /* the component's source file (mpd_F)      */
    const mpd_procspan *spans;
    unsigned n;
    struct mpd_procspans *next; /* the runtime's                            */
} mpd_procspans;
void mpd_register_procspans(mpd_procspans *s);
/* The proc whose lines hold file:line, or NULL. */
const char *mpd_procspan_name(const char *file, int line);

/* The program's start: creates the main resource from inside the first MPD
 * process (mpd_rt_main's main function) and returns at once; the main
 * function should then return.  At program end (every
 * process finished or blocked) the runtime runs the main resource's final
 * code, then the globals' final code, then reports blocked processes. */
void mpd_main_resource(const mpd_respat *pat, mpd_invb *args);

/* stop(n): with n == 0 the main resource's final code and then the globals'
 * run first (in the calling process), as at a normal end; then the program
 * exits with status n. */
_Noreturn void mpd_stop(const char *F, int L, int status);

/* Maximum number of live resource instances (mpdl -R); default 0 = none.
 * Exceeding it: "RTS abort: too many active resources". */
extern unsigned mpd_max_resources;

/* ---------------------------------------------------------------------- */
/* Declaring operations (inside init code, or in a proc for local ops)     */
/* ---------------------------------------------------------------------- */

enum {
    MPD_OP_CALLONLY = 1,  /* {call}                                    */
    MPD_OP_SENDONLY = 2,  /* {send}                                    */
    MPD_OP_DIRECT = 4,    /* proc has no reply/forward: a call may run
                                   it on the caller's stack (the fast path)  */
    MPD_OP_SEMAPHORE = 8, /* mpd_op_new: semaphores (counted ops)      */
    MPD_OP_LEAF = 16,     /* with DIRECT: the proc cannot switch (no
                                   loop, invocation or blocking statement),
                                   so a direct call of it from another
                                   resource needs no hold on the instance    */
};

/* op i (or ops i..i+n-1 of an op array) of `self` is implemented by proc fn.
 * `name` is "res.proc" for messages and the blocked-process report. */
void mpd_op_proc(mpd_res *self, uint32_t i, uint32_t n, mpd_procfn fn, const char *name,
                 unsigned flags);
/* ops i..i+n-1 are implemented by input statements. */
void mpd_op_input(mpd_res *self, uint32_t i, uint32_t n, unsigned flags);
/* The operation classes of `self`'s ops (called before any op is declared):
 * map[i] is the first op of op i's class, or MPD_OP_CLASS_OWN for the
 * default (each declaration, a whole op array, is its own class).  A
 * process that an arrival wakes in an input statement holds its class
 * until it runs (docs/ops.md, "Held operation classes"); a semaphore op
 * named in the map becomes an ordinary op of its class.  map must outlive
 * the instance (a static table). */
#define MPD_OP_CLASS_OWN 0xffffffffu
/* Its declaration's own class, and no semaphore in MPD's sense (exported,
 * called, forwarded, sent to in a co, used as a capability, or served by an
 * `in` with else): declared with mpd_op_sem it stays counted, but a process
 * it wakes holds its class as any op's would. */
#define MPD_OP_CLASS_HELD 0xfffffffeu
void mpd_op_classes(mpd_res *self, const uint32_t *map);
/* ops i..i+n-1 are semaphores: input ops whose queue is just a count, so
 * P/V (send/receive) cost what a semaphore costs.  They still work in any
 * input statement, when called, in co, forward and through capabilities (the
 * count turns into a real queue when that is needed), so the compiler may use
 * this for `sem s[n] = init` AND for every parameterless, result-less input
 * op (init 0).  A negative init aborts: "illegal semaphore initializer value". */
void mpd_op_sem(const char *F, int L, mpd_res *self, uint32_t i, uint32_t n, long init);
/* The same for ops that MPD does not make semaphores (ops declared in a
 * block; see also MPD_OP_CLASS_HELD): counted, but held. */
void mpd_op_sem_held(const char *F, int L, mpd_res *self, uint32_t i, uint32_t n, long init);

/* Local ops of a proc (op declared inside a block) of instance `self`: a new
 * object with n ops that the block declares with the calls above (passing the returned
 * pseudo-instance as `self`).  mpd_ops_local_end kills them at block exit
 * (also when exit/next/return leave it): later invocations through
 * capabilities get "attempting to invoke operation that no longer exists".
 * It may free the object (now or after a grace period on several VPs), so
 * generated code must not touch `local` or its ops afterwards. */
mpd_res *mpd_ops_local(mpd_res *self, uint32_t nops);
void mpd_ops_local_end(mpd_res *local);

/* The capability of op i of `self` (own ops: generated code builds caps to
 * them with this; it is cheap). */
mpd_cap mpd_cap_of(mpd_res *self, uint32_t i);
/* The capability of instance `self` (myresource(), create's result). */
mpd_cap mpd_rescap_of(mpd_res *self);

/* rc.f = c (f is op i of the resource): a resource capability is a record
 * of op capabilities, so the result is a new resource capability whose op i
 * is c and whose other ops are rc's (an object of alias ops).  Destroying it
 * destroys the resource rc named. */
mpd_cap mpd_rescap_with_op(const char *F, int L, mpd_cap rc, uint32_t i, mpd_cap c);
/* rc.f as a value: the capability of the op it names (what rc.f = c put
 * there, else mpd_cap_op_of(rc, i)), so that it compares equal to it. */
mpd_cap mpd_rescap_op(mpd_cap rc, uint32_t i);

/* new(op ...), new(sem), new([n] op ...): n dynamic input ops (semaphores if
 * flags has MPD_OP_SEMAPHORE) in a new object of instance `self`; returns
 * the capability of the first (idx 0); element i is mpd_cap_op_of(c, i).
 * destroy of one of them kills that op
 * ("not a dynamic op" for others, "op no longer exists" when done twice);
 * the object goes when its last op does, and its memory is freed as a
 * local op block's is. */
mpd_cap mpd_op_new(const char *F, int L, mpd_res *self, uint32_t n, unsigned flags);
void mpd_op_destroy(const char *F, int L, mpd_cap c);
/* new([r1, r2...] op ...) and destroy of its result: arr is an initialised
 * ndims-dimensional array blob of caps; every element gets (loses) its own
 * new op, all of one object, in row-major order. */
void mpd_op_new_arr(const char *F, int L, mpd_res *self, void *arr, int ndims, unsigned flags);
void mpd_op_destroy_arr(const char *F, int L, void *arr, int ndims);

/* Index of element i of an op array with lower bound lo and n elements
 * (0-based, to add to the array's first op index); aborts with MPD's
 * subscript message when i is out of range. */
_Noreturn void mpd_op_index_error(const char *F, int L, long i, long lo, long n);
static inline uint32_t mpd_op_index(const char *F, int L, long i, long lo, long n)
{
    if (__builtin_expect(i < lo || i >= lo + n, 0))
        mpd_op_index_error(F, L, i, lo, n);
    return (uint32_t)(i - lo);
}

/* ---------------------------------------------------------------------- */
/* Invoking                                                                */
/* ---------------------------------------------------------------------- */

/* call c(args): returns when the invocation has been serviced (or replied
 * to); results are in `ib`.  noop: returns at once.  null: aborts.
 * (Inline, below: a call of a direct proc is a table lookup and a C call.) */
static inline void mpd_call(const char *F, int L, mpd_cap c, mpd_invb *ib);
/* call rc.f(args), f being op i of resource capability rc: the same as
 * mpd_call(F, L, mpd_cap_op_of(rc, i), ib), with a shorter fast path. */
static inline void mpd_call_rc(const char *F, int L, mpd_cap rc, uint32_t i, mpd_invb *ib);
/* send c(args): never blocks; `ib` may be reused as soon as it returns. */
void mpd_send(const char *F, int L, mpd_cap c, mpd_invb *ib);
/* `send c.op(...)` with large string or array arguments: their copies
 * into the block (g[i].n bytes from g[i].src to g[i].dst, inside ib) are
 * left to the runtime, which makes them for a local op and, for an op of
 * another vm in the distributed deployment, sends those arguments from
 * where they are instead (docs/distributed.md, "Performance"). */
typedef struct mpd_gather {
    void *dst;
    const void *src;
    size_t n;
    int str; /* a string: only its header and its length's characters count */
} mpd_gather;
void mpd_send_gather(const char *F, int L, mpd_cap c, mpd_invb *ib, const mpd_gather *g, int n);
/* call or send by kind (MPD_INV_CALL / MPD_INV_SEND): the one entry point. */
void mpd_invoke(const char *F, int L, mpd_cap c, mpd_invb *ib, int kind);

/* The same, for an op of the current resource known by pointer (own ops):
 * skips capability resolution.  self->ops + i. */
void mpd_call_op(const char *F, int L, mpd_op *op, mpd_invb *ib);
/* mpd_call_op of a proc op that is neither MPD_OP_DIRECT nor send-only
 * (it gets a process), for the inline mpd__call_fast. */
void mpd__call_proc(const char *F, int L, mpd_op *op, mpd_invb *ib);
/* A direct call of a proc that may switch (op->direct == 2): runs it on the
 * caller's stack holding its instance, so that a destroy meanwhile keeps
 * the instance's memory until the call returns (lang/reclaim.c). */
void mpd__call_held(mpd_op *op, mpd_invb *ib);
void mpd_send_op(const char *F, int L, mpd_op *op, mpd_invb *ib);

/* reply: completes the invocation `ib` being serviced (proc or in arm); the
 * invoker resumes with the results now in its block.  Returns the block the
 * servicing code must use from now on: in a proc, `ib` itself; in an in arm
 * serving a call, a private copy (the invoker's own block goes back to it).
 * Generated code always writes  p = mpd_reply(F, L, p);  A second reply, or
 * a reply to a send, does nothing.  In initial code, `reply` is
 * mpd_reply(F, L, args): the creator resumes. */
mpd_invb *mpd_reply(const char *F, int L, mpd_invb *ib);

/* forward c(args): the invocation `cur` being serviced is passed on: `nib`
 * (a block of the target op, same signature) is invoked on `c`, and the
 * original invoker is answered when `nib` is.  Like mpd_reply, returns the
 * block the servicing code keeps using (its later changes are not seen by
 * the invoker). */
mpd_invb *mpd_forward(const char *F, int L, mpd_invb *cur, mpd_cap c, mpd_invb *nib);

/* ?op: number of pending invocations (0 for procs and noop). */
int mpd_pending(const char *F, int L, mpd_cap c);
int mpd_pending_op(mpd_op *op);

/* ---------------------------------------------------------------------- */
/* Input statements: in ... ni, receive                                     */
/* ---------------------------------------------------------------------- */

/* One arm: `n` ops (1 for a plain arm; one per quantifier value for
 * `in [i = ...] p[i](...)`, element k being the k-th value tuple). */
typedef struct mpd_arm {
    mpd_op *const *ops;
    uint32_t n;
    uint8_t has_st;  /* st expression present                    */
    uint8_t has_by;  /* by expression present                    */
    uint8_t st_pure; /* st/by read only the invocation's
                                   parameters and quantifier values: after
                                   a wakeup only new arrivals are examined */
    uint8_t _pad;
} mpd_arm;

/* The input statement being executed (lives on the generated code's
 * stack).  Callbacks receive `env` (a pointer to a struct of the variables
 * the expressions use), the arm, the element k and the invocation. */
typedef struct mpd_in {
    const mpd_arm *arms;
    uint32_t narms;
    uint32_t has_else;
    int (*st)(void *env, uint32_t arm, uint32_t k, mpd_invb *ib);
    double (*by)(void *env, uint32_t arm, uint32_t k, mpd_invb *ib);
    void *env;
    /* results of mpd_in_wait */
    uint32_t arm, k;
} mpd_in;

/* Chooses an invocation: among the pending invocations of every arm whose st
 * is true, the oldest -- or, for arms with `by`, the one with the least by
 * value (oldest among equals).  Removes it and returns it (in->arm, in->k
 * say which arm); blocks until there is one; returns NULL (else arm)
 * when there is none and in->has_else. */
mpd_invb *mpd_in_wait(const char *F, int L, mpd_in *in);
/* End of the arm's body: answers the invoker of a call (unless replied or
 * forwarded) and frees the block of a send. */
void mpd_in_done(mpd_invb *ib);

/* receive / P on one op: the common one-arm, no st/by case. */
mpd_invb *mpd_receive_op(const char *F, int L, mpd_op *op);
/* Resolve a capability used in an input statement: null aborts ("null
 * operation capability"), a proc op aborts ("cannot input from a proc
 * operation"); noop gives an op that never receives anything. */
mpd_op *mpd_in_cap(const char *F, int L, mpd_cap c);

/* ---------------------------------------------------------------------- */
/* co statements                                                           */
/* ---------------------------------------------------------------------- */

/* co [quantifiers] invocation -> block // ... oc
 *   mpd_co *co = mpd_co_begin();
 *   for each arm (and quantifier instance): fill a block, set co_arm/co_idx,
 *       mpd_co_invoke(F, L, co, cap, &blk.h, kind);
 *   while ((ib = mpd_co_wait(F, L, co)) != NULL) {
 *       copy results out of ib; run the arm's post-processing block;
 *       mpd_co_release(ib);
 *       (an `exit` from a post-processing block: break)
 *   }
 *   mpd_co_end(co);
 * mpd_co_invoke copies the block (the invocation may outlive the statement).
 * A send, or an invocation of noop, completes at once.  mpd_co_wait returns
 * completed invocations one at a time, in completion order, and NULL when
 * all are done.  mpd_co_end abandons invocations still running: they
 * complete on their own later. */
mpd_co *mpd_co_begin(void);
void mpd_co_invoke(const char *F, int L, mpd_co *co, mpd_cap c, mpd_invb *ib, int kind);
void mpd_co_invoke_op(const char *F, int L, mpd_co *co, mpd_op *op, mpd_invb *ib, int kind);
mpd_invb *mpd_co_wait(const char *F, int L, mpd_co *co);
void mpd_co_release(mpd_invb *ib);
void mpd_co_end(mpd_co *co);

/* ---------------------------------------------------------------------- */
/* Semaphore ops                                                           */
/* ---------------------------------------------------------------------- */

/* P(s) and V(s) on an op declared with mpd_op_sem (or on any parameterless
 * input op: V = send, P = receive and done).  Inline, below: on one VP a P
 * that finds a unit and a V that finds no waiter touch one counter. */
static inline void mpd_op_P(const char *F, int L, mpd_op *op);
static inline void mpd_op_V(const char *F, int L, mpd_op *op);

/* ---------------------------------------------------------------------- */
/* The op table entry (private: generated code only takes its address)     */
/* ---------------------------------------------------------------------- */

enum {
    MPD_OPK_NONE = 0,
    MPD_OPK_PROC,
    MPD_OPK_INPUT,
    MPD_OPK_SEM,
    MPD_OPK_NOOP,
    MPD_OPK_DEAD,
    MPD_OPK_ALIAS /* stands for another op: q points to its capability */
};

struct mpd_op {
    uint8_t kind;   /* MPD_OPK_*                                */
    uint8_t flags;  /* MPD_OP_*                                 */
    uint8_t direct; /* a live proc a call may run on the
                                   caller's stack: kind PROC, flags DIRECT
                                   and not SENDONLY (one byte for the
                                   inline mpd_call to test): 1 when it is
                                   also LEAF (a plain C call), 2 when it may
                                   switch (mpd__call_held: the call holds
                                   the instance, which a destroy meanwhile
                                   must not free)                           */
    uint8_t _pad;
    uint32_t idx; /* index in its object                      */
    mpd_res *owner;
    const char *name; /* procs: "res.proc"                        */
    mpd_procfn fn;    /* procs                                    */
    void *q;          /* input ops: its queue; sem ops: the sem   */
};

/* ---------------------------------------------------------------------- */
/* Private: the object table and the inline call fast path                 */
/* ---------------------------------------------------------------------- */

/* One array of slots, reserved at the first object and never moved, so a
 * lookup is one indexed load (lang/opobj.c).  A slot also holds its live
 * object's op table, so a call through a capability reaches its op in two
 * dependent loads. */
#define MPD__OBJ_MAX (1u << 20)
typedef struct mpd__slotent {
    _Atomic uint64_t id;   /* the live object's id (generation << 32
                                       | slot); the next generation's once it
                                       dies, so one compare tells a capability
                                       whether its object lives */
    _Atomic(mpd_op *) ops; /* the live object's ops */
    _Atomic(mpd_res *) res;
    const mpd_respat *lastpat; /* for "destroy ... no longer exists" */
    _Atomic uint32_t nops;
    uint32_t nextfree;
} mpd__slotent;
extern _Atomic(mpd__slotent *) mpd__obj_tab;

/* The slot of live object id, or NULL. */
static inline mpd__slotent *mpd__obj_slot_live(uint64_t id)
{
    uint32_t s = (uint32_t)id;
    if (__builtin_expect(s == 0 || s >= MPD__OBJ_MAX, 0))
        return NULL;
    mpd__slotent *t = atomic_load_explicit(&mpd__obj_tab, memory_order_acquire);
    if (__builtin_expect(!t, 0))
        return NULL;
    mpd__slotent *e = &t[s];
    if (atomic_load_explicit(&e->id, memory_order_acquire) != id)
        return NULL;
    return e;
}

/* The live object with this id, or NULL.  The id is read again after the
 * pointer: if the object died and its slot went to a new object between
 * the two reads, the pointer may be the new object's (seen, acquired) and
 * the id then is no longer ours. */
static inline mpd_res *mpd__obj_lookup(uint64_t id)
{
    mpd__slotent *e = mpd__obj_slot_live(id);
    if (!e)
        return NULL;
    mpd_res *r = atomic_load_explicit(&e->res, memory_order_acquire);
    return atomic_load_explicit(&e->id, memory_order_relaxed) == id ? r : NULL;
}

/* The fast path of a call: op `idx` of object `obj` of this vm, if the
 * object is live (its slot still holds its id, so the resource was not
 * destroyed).  A direct proc runs on the caller's stack; a proc that gets
 * a new process goes straight to mpd_call_op (no second lookup).  Returns
 * 0 when the general path must decide.  A capability with vm 1 always
 * comes from the runtime, so its object was made: the table exists and
 * the slot is inside it. */
static inline int mpd__call_fast(const char *F, int L, uint64_t obj, uint32_t idx, mpd_invb *ib)
{
    mpd__slotent *e = &atomic_load_explicit(&mpd__obj_tab, memory_order_relaxed)[(uint32_t)obj];
    if (__builtin_expect(atomic_load_explicit(&e->id, memory_order_acquire) != obj ||
                             idx >= atomic_load_explicit(&e->nops, memory_order_relaxed),
                         0))
        return 0;
    mpd_op *op = &atomic_load_explicit(&e->ops, memory_order_acquire)[idx];
    if (__builtin_expect(atomic_load_explicit(&e->id, memory_order_relaxed) != obj, 0))
        return 0; /* the slot went to a new object meanwhile */
    /* relaxed atomic loads (plain loads): another VP may kill the op */
    uint8_t d = __atomic_load_n(&op->direct, __ATOMIC_RELAXED);
    if (__builtin_expect(d == 1, 1)) {
        ib->kind = MPD_INV_CALL;
        op->fn(op->owner, ib);
        return 1;
    }
    if (d == 2) {
        mpd__call_held(op, ib);
        return 1;
    }
    if (__atomic_load_n(&op->kind, __ATOMIC_RELAXED) == MPD_OPK_PROC &&
        !(__atomic_load_n(&op->flags, __ATOMIC_RELAXED) & (MPD_OP_DIRECT | MPD_OP_SENDONLY))) {
        ib->file = F;
        ib->line = L;
        mpd__call_proc(F, L, op, ib);
        return 1;
    }
    return 0;
}

static inline void mpd_call(const char *F, int L, mpd_cap c, mpd_invb *ib)
{
    if (__builtin_expect(c.vm == 1 && mpd__call_fast(F, L, c.obj, c.idx, ib), 1))
        return;
    mpd_invoke(F, L, c, ib, MPD_INV_CALL);
}

static inline void mpd_call_rc(const char *F, int L, mpd_cap rc, uint32_t i, mpd_invb *ib)
{
    if (__builtin_expect(rc.vm == 1 && mpd__call_fast(F, L, rc.obj, i, ib), 1))
        return;
    mpd_invoke(F, L, mpd_cap_op_of(rc, i), ib, MPD_INV_CALL);
}

/* The start of an input op's queue (lang/opint.h, struct opq).  `fast`
 * mirrors the op's MPD__OPF_SEM1 flag (1: a live counted op of a one-VP
 * program; set and cleared with the flag), so that one 64-bit load of
 * `word` tells the inline P/V both whether the op is a plain semaphore and
 * its value: word > 1 << 32 is a SEM1 op with a unit to take, word ==
 * 1 << 32 one with none and nobody waiting (a P blocks).  While processes
 * wait in the op's own list the word is MPD__OPQ_WAITING, below 1 << 32
 * (its `fast` half 0): so word >= 1 << 32 alone tells a V that it may just
 * add a unit. */
struct mpd__opq_hot {
    union {
        struct {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            uint32_t fast, count;
#else
            uint32_t count; /* pending invocations; a semaphore's value */
            uint32_t fast;  /* 1: the op is MPD__OPF_SEM1 */
#endif
        };
        uint64_t word; /* (fast << 32) | count */
    };
    void *wfirst; /* processes waiting on this op alone */
};
#define MPD__OPQ_FAST1 ((uint64_t)1 << 32) /* word of a SEM1 op with count 0 */
#define MPD__OPQ_WAITING                                                                           \
    (MPD__OPQ_FAST1 - 1)      /* word of a SEM1 op with waiters
                                               (count 0; lang/opint.h) */
#define MPD__OPF_COUNTED 0x40 /* op flag: the queue is just a count */
#define MPD__OPF_SEM1                                                                              \
    0x20 /* op flag: counted, live, and the program
                                       has one VP (set when declared, cleared
                                       when it becomes a queue or dies) */
void mpd__op_P_slow(const char *F, int L, mpd_op *op);
void mpd__op_V_slow(const char *F, int L, mpd_op *op);
/* What an op without a queue (a proc, noop, not declared yet) reads: all
 * zero, so its P and V take the slow path. */
extern const struct mpd__opq_hot mpd__opq_none;

#include "mpd/abi/handoff.h" /* the one-VP P/V handoff, inline */

/* The queue the inline P/V read: op->q, or mpd__opq_none when it has none.
 * op->q is written once, when the op is declared, and queues are never
 * freed, so the load is an asm that depends on `op` alone: in a loop of
 * P(s) the compiler loads it once, before the loop, even though the loop
 * calls the runtime on its slow paths (a plain or atomic load would be
 * repeated every iteration: the count stores and those calls might change
 * it).  A value computed before the declaration would be mpd__opq_none,
 * which only sends P/V to the slow path.  Everything that changes (the
 * SEM1 state, the count, the waiters) is read afresh from the queue. */
static inline struct mpd__opq_hot *mpd__op_hotq(mpd_op *op)
{
    struct mpd__opq_hot *q;
#if defined(__x86_64__) && !defined(MPD_NO_TLS_ASM)
    __asm__("movq %c2(%1), %0\n\t"
            "testq %0, %0\n\t"
            "cmovzq %3, %0"
            : "=&r"(q)
            : "r"(op), "i"(offsetof(mpd_op, q)), "r"(&mpd__opq_none)
            : "cc");
#elif defined(__aarch64__) && !defined(MPD_NO_TLS_ASM)
    __asm__("ldr %0, [%1, %2]\n\t"
            "cmp %0, #0\n\t"
            "csel %0, %3, %0, eq"
            : "=&r"(q)
            : "r"(op), "i"(offsetof(mpd_op, q)), "r"(&mpd__opq_none)
            : "cc");
#else
    q = (struct mpd__opq_hot *)__atomic_load_n(&op->q, __ATOMIC_RELAXED);
    if (!q)
        q = (struct mpd__opq_hot *)&mpd__opq_none;
#endif
    return q;
}

/* The non-blocking P and V: one load of the queue's word, one test, one
 * store of the whole word.  Relaxed atomics because on several VPs the
 * runtime changes the count under its lock while these read it (`fast` is
 * then 0, so they never store); on one VP nothing else runs until this
 * process calls the runtime or switches.
 * always inline: the handoff must switch in the caller's own frame */
/* P when the inline test found no unit to take: wait (inline handoff, or
 * out of line); the process may switch. */
__attribute__((always_inline)) static inline void mpd__op_P_wait(const char *F, int L, mpd_op *op,
                                                                 struct mpd__opq_hot *q, uint64_t w)
{
#ifdef MPD__HANDOFF_INLINE
    /* w <= FAST1 here: w >= WAITING is SEM1 without a unit (nobody waiting,
     * or the marker): wait for a V */
    if (w >= MPD__OPQ_WAITING &&
        __builtin_expect(mpd__p_handoff(F, L, op, (struct mpd__opq_h1 *)(void *)q, w), 1))
        return;
#else
    (void)q;
    (void)w;
#endif
    mpd__op_P_slow(F, L, op);
}

__attribute__((always_inline)) static inline void mpd_op_P(const char *F, int L, mpd_op *op)
{
    struct mpd__opq_hot *q = mpd__op_hotq(op);
    uint64_t w = __atomic_load_n(&q->word, __ATOMIC_RELAXED);
    if (__builtin_expect(w > MPD__OPQ_FAST1, 1)) {
        __atomic_store_n(&q->word, w - 1, __ATOMIC_RELAXED);
        return;
    }
    mpd__op_P_wait(F, L, op, q, w);
}

/* P in a loop that takes its time slice in chunks (mpd_slice_get): *sl is
 * the countdown as it will be after the chunk's last iteration, unrun the
 * iterations of the chunk after this one, so the countdown now is *sl +
 * unrun.  Taking a unit changes nothing.  Waiting may switch, and a switch
 * gives the process a fresh slice: after the wait *sl follows what the
 * countdown became.  The inline handoff returns only after a switch, so it
 * needs nothing more; before the out-of-line wait, which may return without
 * one, the countdown goes back where the runtime reads it.  So the loop
 * yields at exactly the iterations a per-iteration countdown would, at the
 * cost of a load (and on the out-of-line path a store) when P waits. */
__attribute__((always_inline)) static inline void mpd_op_P_chunked(const char *F, int L, mpd_op *op,
                                                                   long *sl, long long unrun)
{
    struct mpd__opq_hot *q = mpd__op_hotq(op);
    uint64_t w = __atomic_load_n(&q->word, __ATOMIC_RELAXED);
    if (__builtin_expect(w > MPD__OPQ_FAST1, 1)) {
        __atomic_store_n(&q->word, w - 1, __ATOMIC_RELAXED);
        return;
    }
#ifdef MPD__HANDOFF_INLINE
    if (w >= MPD__OPQ_WAITING &&
        __builtin_expect(mpd__p_handoff(F, L, op, (struct mpd__opq_h1 *)(void *)q, w), 1)) {
        *sl = mpd_slice_get() - (long)unrun;
        return;
    }
#endif
    mpd_slice_put(*sl + (long)unrun);
    mpd__op_P_slow(F, L, op);
    *sl = mpd_slice_get() - (long)unrun;
}

/* V adds a unit when the op is SEM1 (word >= 1 << 32), which also says no
 * process waits in its list (that lowers the word to MPD__OPQ_WAITING):
 * one load, one test, one store.  (A count that wraps carries into `fast`:
 * the word goes on counting, and P borrows back.) */
__attribute__((always_inline)) static inline void mpd_op_V(const char *F, int L, mpd_op *op)
{
    struct mpd__opq_hot *q = mpd__op_hotq(op);
    uint64_t w = __atomic_load_n(&q->word, __ATOMIC_RELAXED);
    if (__builtin_expect(w >= MPD__OPQ_FAST1, 1)) {
        __atomic_store_n(&q->word, w + 1, __ATOMIC_RELAXED);
        return;
    }
#ifdef MPD__HANDOFF_INLINE
    if (w == MPD__OPQ_WAITING && /* SEM1, a process waits: hand it the unit */
        __builtin_expect(mpd__v_handoff((struct mpd__opq_h1 *)(void *)q), 1))
        return;
#endif
    mpd__op_V_slow(F, L, op);
}

#ifdef __cplusplus
}
#endif
#endif

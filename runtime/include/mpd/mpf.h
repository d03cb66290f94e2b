/* mpd/mpf.h: MPF conversations -- logical, named virtual circuits (LNVCs) over shared memory.
 *
 * A conversation (LNVC) is a queue of messages known by a name.  Processes join
 * it as senders or receivers, at any time, and leave it at any time:
 *
 *   - A message goes to the conversation, not to a process.  Messages are kept
 *     in the order they were sent (one global order per conversation).
 *   - A receiver joins as MPF_FCFS or MPF_BROADCAST.  All FCFS receivers share
 *     one reading position: each message goes to exactly one of them.  Every
 *     BROADCAST receiver has its own position and gets every message sent after
 *     it joined.  A message is delivered to the FCFS group once and to each
 *     BROADCAST receiver once.  One process cannot be both kinds of receiver on
 *     the same conversation.
 *   - Messages sent while the conversation has no receiver at all are kept; the
 *     first receiver to join gets them (its FCFS group, or itself).
 *   - A message is freed as soon as every receiver that was due to get it has
 *     read it or left.  The conversation and its unread messages disappear when
 *     its last sender or receiver leaves.
 *
 * "Processes" are small integers 0..max_processes-1 chosen by the program (the
 * paper's process ids).  One id must be used by one thread (or lightweight
 * process) at a time; distinct ids may be used concurrently from any thread.
 *
 * Deployments (one API):
 *   - in-process: mpf_init / mpf_init_ex with no name; threads of one program
 *     and MPD lightweight processes converse, in any mix.  A receive called
 *     from an MPD process never stops its VP: it yields while it waits, then
 *     sleeps on a helper thread (mpd_blocking_call).  With wait = MPF_WAIT_LWP
 *     the instance belongs to the MPD processes alone and is faster: a blocked
 *     receive parks only its process, and with one VP no atomic locks are
 *     taken; any other caller gets MPF_ENOTSUP;
 *   - cross-process: mpf_init_ex with a name creates a POSIX shared-memory
 *     segment (/dev/shm/<name>); other programs join with mpf_attach(name);
 *     children made by fork() after init may use the same handle.  Internal
 *     locks are robust: a participant that dies, even while holding one, does
 *     not wedge the others, and its connections are closed for it.
 *
 * Errors: every function returns a negative MPF_E* code on failure; no message
 * is ever truncated or silently dropped.  mpf_strerror() names the code. */
#ifndef MPD_MPF_H
#define MPD_MPF_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mpf mpf_t;

/* Receive protocols. */
enum { MPF_FCFS = 1, MPF_BROADCAST = 2 };

/* How a blocked receiver waits (in-process deployment only). */
enum {
    MPF_WAIT_THREADS = 0, /* spin briefly, then sleep in the kernel (futex) */
    MPF_WAIT_LWP = 1      /* MPD lightweight processes only: park the calling process (mpd/rt.h) */
};

/* Error codes (returned negated). */
enum {
    MPF_OK = 0,
    MPF_EINVAL = 1,    /* bad argument (NULL pointer, bad protocol, bad option) */
    MPF_EBADPID = 2,   /* process id outside 0..max_processes-1 */
    MPF_EBADID = 3,    /* no such conversation id (never opened, or already gone) */
    MPF_ENOTCONN = 4,  /* the process has no connection of that kind to the conversation */
    MPF_EALREADY = 5,  /* the process already has that connection */
    MPF_EPROTOCOL = 6, /* already a receiver with the other protocol on this conversation */
    MPF_ENAME = 7,     /* conversation name empty or longer than MPF_NAME_MAX */
    MPF_ENOLNVC = 8,   /* all max_lnvcs conversation slots are in use */
    MPF_ENOSPACE = 9,  /* message memory exhausted (send again after receivers catch up) */
    MPF_ETOOLONG = 10, /* message longer than the segment's max_message */
    MPF_EMSGSIZE = 11, /* receive buffer shorter than the next message (it stays queued) */
    MPF_EAGAIN = 12,   /* nothing to receive (mpf_message_try_receive only) */
    MPF_ECLOSED = 13,  /* the connection was closed while this call waited */
    MPF_EBUSYPID = 14, /* process id in use by another live OS process */
    MPF_EEXIST = 15,   /* shared segment name already exists (create) */
    MPF_ENOENT = 16,   /* shared segment does not exist (attach) */
    MPF_EFORMAT = 17,  /* shared segment is not an MPF segment of this version */
    MPF_ESYS = 18,     /* a system call failed (errno is kept) */
    MPF_ENOTSUP =
        19, /* operation not available in this deployment (e.g. a thread on an MPF_WAIT_LWP instance) */
    MPF_ECORRUPT = 20,   /* a dead participant left state that could not be recovered */
    MPF_ENOSENDERS = 21, /* receive: nothing to read, no sender connected, and the last one to
                            leave died (its connection closed by the reaper) */
    MPF_ETIMEDOUT = 22   /* mpf_message_timed_receive: nothing arrived in time */
};

#define MPF_NAME_MAX 63 /* longest conversation name, in bytes */

/* Segment shape.  Zero fields take the defaults shown. */
typedef struct mpf_options {
    const char *shm_name; /* NULL: in-process; else "/name" or "name" of a new shm segment */
    int max_lnvcs;        /* conversations alive at once (64) */
    int max_processes;    /* process ids 0..max_processes-1 (64) */
    size_t max_message;   /* longest message, bytes (65536); pool_bytes must hold one */
    size_t pool_bytes;    /* memory for queued message data (16 MiB) */
    int max_messages;     /* messages queued at once over all conversations (16384) */
    size_t data_block;    /* size of one data block, bytes (4096) */
    int spin; /* spins before sleeping in a blocked receive (env MPF_SPIN; 2000, about 60 us here) */
    int wait;       /* MPF_WAIT_THREADS or MPF_WAIT_LWP */
    int replace;    /* shm: remove an existing segment of that name first */
    int send_waits; /* nonzero: a send that finds memory exhausted waits instead of
                                 failing with MPF_ENOSPACE */
} mpf_options;

/* The paper's init: an in-process instance for threads, default sizes otherwise. */
int mpf_init(mpf_t **out, int max_lnvcs, int max_processes);
/* Create an instance with explicit options (see mpf_options). */
int mpf_init_ex(mpf_t **out, const mpf_options *opt);
/* Join an existing shared segment created by another program. */
int mpf_attach(mpf_t **out, const char *shm_name);
/* Leave: unmaps the segment (connections stay until closed or the process exits
 * and is reaped).  For an in-process instance this frees everything. */
int mpf_finish(mpf_t *m);
/* Remove a shared segment's name (mapped users keep working). */
int mpf_unlink(const char *shm_name);

/* Connect process pid as a sender / receiver of conversation `name`, creating the
 * conversation if needed.  Returns the conversation id (>= 0) or -MPF_E*. */
int mpf_open_send(mpf_t *m, int pid, const char *name);
int mpf_open_receive(mpf_t *m, int pid, const char *name, int protocol);

/* Remove the connection.  The last connection to leave deletes the conversation
 * with its unread messages.  A close_receive frees every message that all the
 * remaining receivers have read. */
int mpf_close_send(mpf_t *m, int pid, int lnvc);
int mpf_close_receive(mpf_t *m, int pid, int lnvc);

/* Copy len bytes into the conversation and return at once (0 or -MPF_E*). */
int mpf_message_send(mpf_t *m, int pid, int lnvc, const void *buf, size_t len);

/* Wait for the next message for pid, copy it into buf (capacity cap) and return
 * its length.  If cap is too small, returns -MPF_EMSGSIZE and leaves the message
 * queued; mpf_check_receive's *next_len tells the size needed. */
ssize_t mpf_message_receive(mpf_t *m, int pid, int lnvc, void *buf, size_t cap);
/* Same, but returns -MPF_EAGAIN instead of waiting. */
ssize_t mpf_message_try_receive(mpf_t *m, int pid, int lnvc, void *buf, size_t cap);
/* Same, waiting at most timeout_ns nanoseconds: -MPF_ETIMEDOUT when nothing came. */
ssize_t mpf_message_timed_receive(mpf_t *m, int pid, int lnvc, void *buf, size_t cap,
                                  long long timeout_ns);
/* A receive that finds nothing to read while the conversation has no sender
 * and the last one to leave died (reaped: a waiting receive in a shared
 * segment looks for dead participants about once a second) returns
 * -MPF_ENOSENDERS instead of waiting forever.  Senders that close normally
 * may be followed by others (conversations outlive their members): then a
 * receive keeps waiting -- use mpf_message_timed_receive to bound it.
 * Messages still queued are read first; a sender joining clears it. */

/* Number of messages waiting for pid (0 if none), or -MPF_E*.  For a FCFS
 * receiver another FCFS receiver may take them first.  If next_len is not NULL
 * and a message waits, *next_len gets the length of the next one. */
int mpf_check_receive(mpf_t *m, int pid, int lnvc, size_t *next_len);

/* Close the connections of participants whose OS process has died (done
 * automatically after a lock is recovered from a dead owner).  Returns the
 * number of connections closed. */
int mpf_reap(mpf_t *m);

/* Statistics, for tests and tools. */
typedef struct mpf_stats {
    int lnvcs;                /* conversations alive */
    int messages_queued;      /* messages not yet freed */
    size_t free_messages;     /* free message headers */
    size_t free_blocks;       /* free data blocks */
    unsigned long recoveries; /* locks recovered from a dead owner */
} mpf_stats;
int mpf_stats_get(mpf_t *m, mpf_stats *st);

const char *mpf_strerror(int err); /* accepts the code negated or not */

#ifdef __cplusplus
}
#endif
#endif

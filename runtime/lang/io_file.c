/* io_file.c: MPD file values — the standard files, open/close/flush/seek/
 * where/remove, and the two doors all statement I/O goes through (io_emit
 * for output, io_input for input). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include "io_internal.h"
#include "mpd/rt.h"

static struct mpd_file_s std_in = {.kind = FK_STREAM, .mode = MPD_READ, .may_block = 1, .std = 1};
static struct mpd_file_s std_out = {.kind = FK_STREAM, .mode = MPD_WRITE, .may_block = 1, .std = 1};
static struct mpd_file_s std_err = {
    .kind = FK_STREAM, .mode = MPD_WRITE, .may_block = 1, .autoflush = 1, .std = 1};
static struct mpd_file_s noop_file = {.kind = FK_NOOP, .mode = MPD_READWRITE, .std = 1};

mpd_file mpd_stdin = &std_in;
mpd_file mpd_stdout = &std_out;
mpd_file mpd_stderr = &std_err;
mpd_file mpd_noop = &noop_file;

void (*mpd_io_block_hook)(void (*fn)(void *), void *arg);

/* Closed files are kept (and listed here): copies of a file value may still
 * exist, and using one must give "file not open", not touch a new file. */
static struct mpd_file_s *all_files;
static pthread_mutex_t all_files_lock = PTHREAD_MUTEX_INITIALIZER;

/* Regular files and block devices never block for long; anything else
 * (terminal, pipe, socket) may wait for another program or a person. */
static void classify(struct mpd_file_s *f)
{
    struct stat st;
    int fd = fileno(f->fp);
    f->may_block = !(fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)));
    f->autoflush = isatty(fd);
}

void mpd_io_std_reset(void)
{
    classify(&std_in);
    classify(&std_out);
    classify(&std_err);
    std_err.autoflush = 1;
}

void mpd_io_std_rebind(void)
{
    std_out.fp = stdout;
    std_err.fp = stderr;
    mpd_io_std_reset();
}

__attribute__((constructor)) static void io_std_init(void)
{
    std_in.fp = stdin;
    std_out.fp = stdout;
    std_err.fp = stderr;
    mpd_io_std_reset();
    sem_init(&std_in.in_lock, 0, 1);
    sem_init(&std_out.in_lock, 0, 1);
    sem_init(&std_err.in_lock, 0, 1);
    /* RTS aborts flush MPD's files, but never wait on a blocked reader */
    mpd_rts_before_exit = mpd_io_flush_all;
}

int io_usable(const char *file, int line, mpd_file f)
{
    if (f == NULL)
        mpd_rts_abort(file, line, "operation attempted on null file");
    if (f->kind == FK_NOOP)
        return 0;
    if (f->kind != FK_STREAM || f->fp == NULL)
        mpd_rts_abort(file, line, "file not open");
    return 1;
}

void io_emit(const char *file, int line, mpd_file f, const char *p, size_t n)
{
    if (!io_usable(file, line, f))
        return;
    /* stderr, terminals and pipes may share a destination with stdout:
     * what stdout holds must come out first */
    if (f->fp != stdout && (f->may_block || f == &std_err))
        fflush(stdout);
    if (n)
        fwrite(p, 1, n, f->fp);
    if (f->autoflush)
        fflush(f->fp);
}

/* ---- waiting without stopping the other processes ---- */

typedef struct {
    intptr_t (*fn)(void *);
    void *arg;
    intptr_t result;
} hook_job;

static void run_hook_job(void *a)
{
    hook_job *j = a;
    j->result = j->fn(j->arg);
}

intptr_t io_block(intptr_t (*fn)(void *), void *arg)
{
    if (mpd_io_block_hook) {
        hook_job j = {fn, arg, 0};
        mpd_io_block_hook(run_hook_job, &j);
        return j.result;
    }
    if (mpd_self())
        return mpd_blocking_call(fn, arg, NULL);
    return fn(arg); /* plain C caller, not an MPD process */
}

static intptr_t poll_input(void *a)
{
    struct pollfd p = {*(int *)a, POLLIN, 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR)
        ;
    return 0;
}

void io_wait_readable(mpd_file f)
{
    int fd = fileno(f->fp);
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 0) != 0)
        return;     /* data, end of file or an error: no wait */
    fflush(stdout); /* a prompt written before must be visible */
    io_block(poll_input, &fd);
}

static intptr_t wait_sem(void *a)
{
    while (sem_wait(a) != 0 && errno == EINTR)
        ;
    return 0;
}

#ifndef IO_BUFFER_EMPTY
typedef struct {
    void (*fn)(io_src *, void *);
    void *arg;
    io_src *in;
} input_job;

static intptr_t run_input_job(void *a)
{
    input_job *j = a;
    j->fn(j->in, j->arg);
    return 0;
}
#endif

void io_input(mpd_file f, void (*fn)(io_src *in, void *arg), void *arg)
{
    io_src in = {f, f->fp, 0, NULL, 0, 0};
    if (sem_trywait(&f->in_lock) != 0)
        io_block(wait_sem, &f->in_lock); /* another process is reading f */
#ifdef IO_BUFFER_EMPTY
    in.wait = f->may_block;
    fn(&in, arg);
#else
    if (f->may_block) {
        input_job j = {fn, arg, &in};
        fflush(stdout);
        io_block(run_input_job, &j);
    } else {
        fn(&in, arg);
    }
#endif
    sem_post(&f->in_lock);
}

mpd_file mpd_open(const char *file, int line, const char *path, int pathlen, long long mode)
{
    static const char *const how[] = {"r", "w", "r+"};
    if (mode < MPD_READ || mode > MPD_READWRITE)
        mpd_rts_abort(file, line, "illegal mode %lld for open", mode);
    char *name = malloc((size_t)pathlen + 1);
    if (!name)
        mpd_rts_fatal("out of memory");
    memcpy(name, path, (size_t)pathlen);
    name[pathlen] = 0;
    /* what this program wrote so far must be in files it may now read */
    mpd_io_flush_all();
    FILE *fp = fopen(name, how[mode]);
    free(name);
    if (!fp)
        return NULL;
    struct mpd_file_s *f = calloc(1, sizeof *f);
    if (!f)
        mpd_rts_fatal("out of memory");
    f->kind = FK_STREAM;
    f->fp = fp;
    f->mode = (int)mode;
    sem_init(&f->in_lock, 0, 1);
    classify(f);
    pthread_mutex_lock(&all_files_lock);
    f->next = all_files;
    all_files = f;
    pthread_mutex_unlock(&all_files_lock);
    return f;
}

void mpd_close(const char *file, int line, mpd_file f)
{
    if (!io_usable(file, line, f))
        return;
    if (f->std) { /* stdout and friends stay usable for RTS messages */
        fflush(f->fp);
        return;
    }
    FILE *fp = f->fp;
    f->fp = NULL;
    f->kind = FK_CLOSED; /* the value may still be copied around: keep it */
    if (fclose(fp) != 0)
        mpd_rts_abort(file, line, "close failed: %s", strerror(errno));
}

void mpd_flush(const char *file, int line, mpd_file f)
{
    if (!io_usable(file, line, f))
        return;
    if (fflush(f->fp) != 0 && f->mode != MPD_READ)
        mpd_rts_abort(file, line, "flush failed: %s", strerror(errno));
}

int mpd_remove(const char *path, int pathlen)
{
    char *name = malloc((size_t)pathlen + 1);
    if (!name)
        mpd_rts_fatal("out of memory");
    memcpy(name, path, (size_t)pathlen);
    name[pathlen] = 0;
    int ok = unlink(name) == 0;
    free(name);
    return ok;
}

long long mpd_seek(const char *file, int line, mpd_file f, long long stype, long long off)
{
    static const int whence[] = {SEEK_SET, SEEK_CUR, SEEK_END};
    if (!io_usable(file, line, f))
        return 0;
    if (stype < MPD_ABSOLUTE || stype > MPD_EXTEND)
        mpd_rts_abort(file, line, "illegal seek type %lld", stype);
    if (fseeko(f->fp, (off_t)off, whence[stype]) != 0)
        return -1;
    return (long long)ftello(f->fp);
}

long long mpd_where(const char *file, int line, mpd_file f)
{
    if (!io_usable(file, line, f))
        return 0;
    return (long long)ftello(f->fp);
}

FILE *mpd_file_cfile(mpd_file f)
{
    return f && f->kind == FK_STREAM ? f->fp : NULL;
}

/* Flushes fp unless another thread keeps it locked (a reader blocked on a
 * terminal holds its stream's lock): an abort must never hang on it. */
static void flush_if_free(FILE *fp)
{
    for (int tries = 0; tries < 100; tries++) {
        if (ftrylockfile(fp) == 0) {
            fflush_unlocked(fp);
            funlockfile(fp);
            return;
        }
        sched_yield();
    }
}

void mpd_io_flush_all(void)
{
    flush_if_free(stdout);
    flush_if_free(stderr);
    if (pthread_mutex_trylock(&all_files_lock) != 0)
        return;
    for (struct mpd_file_s *f = all_files; f; f = f->next)
        if (f->kind == FK_STREAM && f->fp && f->mode != MPD_READ)
            flush_if_free(f->fp);
    pthread_mutex_unlock(&all_files_lock);
}

void mpd_put(const char *file, int line, mpd_file f, const char *p, int len)
{
    io_emit(file, line, f, p, len > 0 ? (size_t)len : 0);
}

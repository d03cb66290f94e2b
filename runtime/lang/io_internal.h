/* io_internal.h: shared internals of the I/O modules (io*.c, fmt*.c, conv*.c). */
#ifndef MPD_IO_INTERNAL_H
#define MPD_IO_INTERNAL_H

#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mpd/abi/io.h"

/* ---- growable text buffer (statement output is built here first) ---- */
typedef struct {
    char *p;
    size_t len, cap;
    char small[256];
} io_buf;

void io_buf_init(io_buf *b);
void io_buf_free(io_buf *b);
void io_buf_reserve(io_buf *b, size_t more); /* room for `more` bytes + NUL */
void io_buf_add(io_buf *b, const char *p, size_t n);
void io_buf_addc(io_buf *b, char c);
/* Appends the text of one value as write/string(x) print it. */
void io_buf_add_val(io_buf *b, const mpd_val *v);

/* ---- files ---- */
enum { FK_STREAM = 1, FK_NOOP, FK_CLOSED };

struct mpd_file_s {
    int kind;                /* FK_* */
    FILE *fp;                /* the stdio stream (FK_STREAM) */
    int mode;                /* MPD_READ / MPD_WRITE / MPD_READWRITE */
    int may_block;           /* terminal, pipe, socket: input can block */
    int autoflush;           /* terminal: flush after every output statement */
    int std;                 /* one of the three standard streams (never fclosed) */
    sem_t in_lock;           /* one input statement at a time (not tied to a thread:
                        * a process may resume on another VP after blocking) */
    struct mpd_file_s *next; /* every file ever opened (values outlive close) */
};

/* Checks f for an operation: aborts on null/closed; returns 0 for noop. */
int io_usable(const char *file, int line, mpd_file f);
/* The standard files take the C streams stdout and stderr are now (the
 * distributed layer replaces them: dist/comm.c). */
void mpd_io_std_rebind(void);
/* Writes one whole output statement to f (handles ordering and flushing). */
void io_emit(const char *file, int line, mpd_file f, const char *p, size_t n);
/* Runs fn(arg) where it may block without stopping the other MPD processes
 * (mpd_blocking_call inside a process, else directly). */
intptr_t io_block(intptr_t (*fn)(void *), void *arg);

/* ---- character sources for read/scanf: a FILE or a string ---- */
typedef struct {
    mpd_file f;
    FILE *fp; /* NULL: read from s */
    int wait; /* check for data before each refill of fp */
    const char *s;
    int slen, pos;
} io_src;

/* Waits (letting other processes run) until f's descriptor has input, an
 * end of file or an error, so that the next refill cannot block. */
void io_wait_readable(mpd_file f);

#if defined(__GLIBC__) && !defined(MPD_IO_PORTABLE)
/* glibc lets us see whether the stream buffer is empty: then (and only
 * then) the next getc would read(2), and a terminal or pipe may block. */
#define IO_BUFFER_EMPTY(fp) ((fp)->_IO_read_ptr >= (fp)->_IO_read_end)
#endif

static inline int io_getc(io_src *in)
{
    if (in->fp) {
#ifdef IO_BUFFER_EMPTY
        if (in->wait && IO_BUFFER_EMPTY(in->fp))
            io_wait_readable(in->f);
#endif
        return getc_unlocked(in->fp);
    }
    return in->pos < in->slen ? (unsigned char)in->s[in->pos++] : EOF;
}
static inline void io_ungetc(io_src *in, int c)
{
    if (c == EOF)
        return;
    if (in->fp)
        ungetc(c, in->fp);
    else
        in->pos--;
}

/* Runs fn(in, arg) with a source reading f, one input statement at a time
 * per file.  Terminal and pipe input waits without stopping other
 * processes: per refill with glibc, else the whole statement runs on a
 * helper thread. */
void io_input(mpd_file f, void (*fn)(io_src *in, void *arg), void *arg);

/* ---- storing into input destinations ---- */
void io_store_int(const mpd_dest *d, long long v);
void io_store_bool(const mpd_dest *d, int v);
/* Stores n characters into a string (length set) or char array (the rest
 * filled with `pad`, or left alone when pad < 0). */
void io_store_chars(const mpd_dest *d, const char *p, int n, int pad);
/* Converts a token/argument text to d's (non-string) type and stores it;
 * returns 1 on success, 0 (d unchanged) on failure. */
int io_store_parsed(const mpd_dest *d, const char *p, int n);

int io_isspace(int c);

#endif

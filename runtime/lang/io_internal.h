/* io_internal.h: shared internals of the I/O modules (io*.c, fmt*.c, conv*.c). */
#ifndef MPD_IO_INTERNAL_H
#define MPD_IO_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include "mpd/io.h"

/* ---- growable text buffer (statement output is built here first) ---- */
typedef struct {
    char *p;
    size_t len, cap;
    char small[256];
} io_buf;

void io_buf_init(io_buf *b);
void io_buf_free(io_buf *b);
void io_buf_reserve(io_buf *b, size_t more);   /* room for `more` bytes + NUL */
void io_buf_add(io_buf *b, const char *p, size_t n);
void io_buf_addc(io_buf *b, char c);
/* Appends the text of one value as write/string(x) print it. */
void io_buf_add_val(io_buf *b, const mpd_val *v);

/* ---- files ---- */
enum { FK_STREAM = 1, FK_NOOP, FK_CLOSED };

struct mpd_file_s {
    int kind;          /* FK_* */
    FILE *fp;          /* the stdio stream (FK_STREAM) */
    int mode;          /* MPD_READ / MPD_WRITE / MPD_READWRITE */
    int may_block;     /* terminal, pipe, socket: input can block */
    int autoflush;     /* terminal: flush after every output statement */
    int std;           /* one of the three standard streams (never fclosed) */
    struct mpd_file_s *next;   /* every file ever opened (values outlive close) */
};

/* Checks f for an operation: aborts on null/closed; returns 0 for noop. */
int io_usable(const char *file, int line, mpd_file f);
/* Writes one whole output statement to f (handles ordering and flushing). */
void io_emit(const char *file, int line, mpd_file f, const char *p, size_t n);
/* Runs fn(arg) on f's stream: inline for regular files, or where it may
 * block without stopping other MPD processes for terminals and pipes.
 * The stream is locked (flockfile) while fn runs, so fn uses the unlocked
 * stdio calls. */
void io_input(mpd_file f, void (*fn)(void *), void *arg);

/* ---- character sources for read/scanf: a locked FILE or a string ---- */
typedef struct {
    FILE *fp;              /* NULL: read from s */
    const char *s;
    int slen, pos;
} io_src;

static inline int io_getc(io_src *in)
{
    if (in->fp)
        return getc_unlocked(in->fp);
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

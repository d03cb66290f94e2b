/* io_read.c: MPD's read (lines into strings, tokens into scalars) and get
 * (raw characters). */
#include <string.h>
#include "io_internal.h"

typedef struct {
    int n;
    const mpd_dest *d;
    long long result;
} read_job;

/* The rest of the current line into a string or char array.  A line longer
 * than the variable is cut and its rest stays unread; the newline ending a
 * line that fits is consumed.  Returns 0 at end of file. */
static int read_line(io_src *in, const mpd_dest *d, io_buf *b)
{
    int c = io_getc(in);
    if (c == EOF)
        return 0;
    while (c != EOF && c != '\n') {
        if (b->len == (size_t)d->size) {
            io_ungetc(in, c);
            break;
        }
        io_buf_addc(b, (char)c);
        c = io_getc(in);
    }
    io_store_chars(d, b->p, (int)b->len, ' ');
    return 1;
}

/* The next whitespace-separated token into b; the whitespace after it is
 * consumed up to and including the first newline.  0 at end of file. */
static int read_token(io_src *in, io_buf *b)
{
    int c;
    do
        c = io_getc(in);
    while (c != EOF && io_isspace(c));
    if (c == EOF)
        return 0;
    while (c != EOF && !io_isspace(c)) {
        io_buf_addc(b, (char)c);
        c = io_getc(in);
    }
    while (c != EOF && c != '\n' && io_isspace(c))
        c = io_getc(in);
    if (c != '\n')
        io_ungetc(in, c);
    return 1;
}

static void do_read(io_src *in, void *arg)
{
    read_job *j = arg;
    io_buf b;
    io_buf_init(&b);
    long long count = 0;
    for (int i = 0; i < j->n; i++) {
        const mpd_dest *d = &j->d[i];
        b.len = 0;
        int got = d->kind == MPD_V_STR ? read_line(in, d, &b) : read_token(in, &b);
        if (!got) {
            j->result = count ? count : MPD_EOF;
            goto out;
        }
        if (d->kind != MPD_V_STR && !io_store_parsed(d, b.p, (int)b.len)) {
            j->result = count;
            goto out;
        }
        count++;
    }
    j->result = count;
out:
    io_buf_free(&b);
}

long long mpd_read(const char *file, int line, mpd_file f, int n, const mpd_dest *d)
{
    if (!io_usable(file, line, f))
        return MPD_EOF;
    read_job j = {n, d, 0};
    io_input(f, do_read, &j);
    return j.result;
}

typedef struct {
    char *data;
    int cap;
    long long result;
} get_job;

static void do_get(io_src *in, void *arg)
{
    get_job *j = arg;
    int k = 0, c = 0;
    while (k < j->cap && (c = io_getc(in)) != EOF)
        j->data[k++] = (char)c;
    j->result = k == 0 && c == EOF ? MPD_EOF : k;
}

long long mpd_get(const char *file, int line, mpd_file f, char *data, int cap, int *len)
{
    if (!io_usable(file, line, f))
        return MPD_EOF;
    get_job j = {data, cap, 0};
    io_input(f, do_get, &j);
    if (len && j.result >= 0)
        *len = (int)j.result;
    return j.result;
}

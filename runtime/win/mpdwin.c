/* mpdwin.c: the C half of MPDWin, MPD's X11 window library (man page
 * docs/man/mpdwin.3; the MPD half is library/MPDWin.mpd, which calls the
 * mpdwin_* functions below as `external`s).
 *
 * Objects.  A `top` is one connection to an X server, opened by WinOpen, with
 * its top-level window; a `win` is an X window (top-level or subwindow) with a
 * backing pixmap of its size, so drawings survive exposure: every drawing goes
 * to the pixmap and, while output is enabled, to the window too; Expose
 * events copy the pixmap back.  What MPD calls a winWindow is a `ctx`: a win
 * plus a graphics context (WinNewContext makes another ctx on the same win).
 *
 * Events.  Each window with an event channel has an MPD process that polls
 * mpdwin_next_event(); that call reads whatever the server has sent on the
 * connection, repaints exposed areas, queues input events on the window the
 * server delivered them to (X itself passes an unselected event up to the
 * nearest ancestor that selects it) and hands back the caller's next one.
 *
 * Locking.  MPD processes run on several OS threads, so every use of Xlib and
 * of these structures holds one mutex; no call blocks except for a server
 * round trip (XSync). Windows are never freed, only marked dead, so a
 * winWindow kept by the program after WinClose is still safe to use: every
 * operation on it does nothing. */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/cursorfont.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpd/err.h"

/* Event types and button/key flags: the values of MPDWin.mpd's constants. */
enum {
    EV_BUTTON_DOWN = 1,
    EV_BUTTON_UP = 2,
    EV_KEY_DOWN = 4,
    EV_KEY_UP = 8,
    EV_POINTER_MOVE = 16,
    EV_ENTER = 32,
    EV_EXIT = 64,
    EV_DELETE = 128,
    EV_ALL = 255
};
enum { BK_BUTTON1 = 1, BK_SHIFT = 32, BK_LOCK = 64, BK_CNTRL = 128, BK_MOD1 = 256 };

typedef struct top top;
typedef struct win win;
typedef struct ctx ctx;
typedef struct event event;

struct event {
    int type, x, y, bk, data, keysym;
    event *next;
};

struct top {
    Display *dpy;
    int screen;
    Colormap cmap;
    Atom wm_protocols, wm_delete;
    int poll_ms;
    int output; /* drawings go to the windows too (not only pixmaps) */
    int closed;
    XFontStruct *font; /* the default font */
    GC plain;          /* for clearing and repainting: no clip, copy */
    win *wins;         /* every window of this connection */
};

struct win {
    top *t;
    Window xw;
    Pixmap pm;
    int w, h;
    unsigned long bg; /* the window background (WinClearArea) */
    long mask;        /* MPDWin event mask */
    int channel;      /* events are queued only for a window with a channel */
    int dead;
    win *parent, *next;
    ctx *first; /* the winWindow given back at creation (event.window) */
    event *head, *tail;
};

struct ctx {
    win *w;
    GC gc;
    XFontStruct *font;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() pthread_mutex_lock(&lock)
#define UNLOCK() pthread_mutex_unlock(&lock)

/* A winWindow must not be null.  One whose window was closed or destroyed
 * gives NULL: the operation does nothing, so processes still drawing while
 * another one closes the window (at the end of a program) are harmless. */
static ctx *use(void *p, const char *what)
{
    ctx *c = p;
    if (!c)
        mpd_rts_fatal("MPDWin: %s: the window is null (did WinOpen fail?)", what);
    if (c->w->dead || c->w->t->closed)
        return NULL;
    return c;
}

/* c = the live context p, else unlock and return r from the caller */
#define USE(c, p, what, ...)                                                                       \
    ctx *c = use(p, what);                                                                         \
    if (!c) {                                                                                      \
        UNLOCK();                                                                                  \
        return __VA_ARGS__;                                                                        \
    }

#define DPY(c) ((c)->w->t->dpy)

/* ---- windows ---- */

static long x_mask(long m)
{
    long x = ExposureMask | StructureNotifyMask;
    if (m & EV_BUTTON_DOWN)
        x |= ButtonPressMask;
    if (m & EV_BUTTON_UP)
        x |= ButtonReleaseMask;
    if (m & EV_KEY_DOWN)
        x |= KeyPressMask;
    if (m & EV_KEY_UP)
        x |= KeyReleaseMask;
    if (m & EV_POINTER_MOVE)
        x |= PointerMotionMask;
    if (m & EV_ENTER)
        x |= EnterWindowMask;
    if (m & EV_EXIT)
        x |= LeaveWindowMask;
    return x;
}

static ctx *new_ctx(win *w, GC from)
{
    ctx *c = calloc(1, sizeof *c);
    if (!c)
        mpd_rts_fatal("MPDWin: out of memory");
    Display *d = w->t->dpy;
    c->w = w;
    c->gc = XCreateGC(d, w->pm, 0, NULL);
    if (from) {
        XCopyGC(d, from, ~0UL & ((1UL << (GCLastBit + 1)) - 1), c->gc);
    } else {
        /* white on black, the default font */
        XSetForeground(d, c->gc, WhitePixel(d, w->t->screen));
        XSetBackground(d, c->gc, BlackPixel(d, w->t->screen));
        if (w->t->font)
            XSetFont(d, c->gc, w->t->font->fid);
    }
    c->font = w->t->font;
    return c;
}

static win *new_win(top *t, win *parent, int x, int y, int w, int h)
{
    win *n = calloc(1, sizeof *n);
    if (!n)
        mpd_rts_fatal("MPDWin: out of memory");
    Display *d = t->dpy;
    if (w < 1)
        w = 1;
    if (h < 1)
        h = 1;
    n->t = t;
    n->w = w;
    n->h = h;
    n->bg = BlackPixel(d, t->screen);
    n->parent = parent;
    Window pw = parent ? parent->xw : RootWindow(d, t->screen);
    n->xw = XCreateSimpleWindow(d, pw, x, y, (unsigned)w, (unsigned)h, 0, WhitePixel(d, t->screen),
                                n->bg);
    n->pm = XCreatePixmap(d, n->xw, (unsigned)w, (unsigned)h, (unsigned)DefaultDepth(d, t->screen));
    XSetForeground(d, t->plain, n->bg);
    XFillRectangle(d, n->pm, t->plain, 0, 0, (unsigned)w, (unsigned)h);
    XSelectInput(d, n->xw, x_mask(0));
    n->next = t->wins;
    t->wins = n;
    return n;
}

/* WinOpen's C part: NULL (after a message saying why) if there is no display. */
void *mpdwin_open(const char *display, const char *title, int offscreen, int w, int h)
{
    LOCK();
    const char *name = display && *display ? display : NULL;
    Display *d = XOpenDisplay(name);
    if (!d) {
        const char *shown = name ? name : getenv("DISPLAY");
        fprintf(stderr, "MPDWin: cannot open display \"%s\"%s\n", shown ? shown : "",
                shown && *shown ? "" : " (DISPLAY is not set)");
        UNLOCK();
        return NULL;
    }
    top *t = calloc(1, sizeof *t);
    if (!t)
        mpd_rts_fatal("MPDWin: out of memory");
    t->dpy = d;
    t->screen = DefaultScreen(d);
    t->cmap = DefaultColormap(d, t->screen);
    t->poll_ms = 100;
    t->output = !offscreen;
    t->wm_protocols = XInternAtom(d, "WM_PROTOCOLS", False);
    t->wm_delete = XInternAtom(d, "WM_DELETE_WINDOW", False);
    t->font = XLoadQueryFont(d, "fixed");
    t->plain = XCreateGC(d, RootWindow(d, t->screen), 0, NULL);
    win *n = new_win(t, NULL, 0, 0, w, h);
    XSetWMProtocols(d, n->xw, &t->wm_delete, 1);
    XStoreName(d, n->xw, title ? title : "");
    XSetIconName(d, n->xw, "MPDWin");
    ctx *c = new_ctx(n, NULL);
    n->first = c;
    if (!offscreen)
        XMapWindow(d, n->xw);
    XFlush(d);
    UNLOCK();
    return c;
}

void *mpdwin_subwindow(void *oldwin, int offscreen, int x, int y, int w, int h)
{
    LOCK();
    USE(o, oldwin, "WinCreateSubwindow", NULL)
    win *n = new_win(o->w->t, o->w, x, y, w, h);
    ctx *c = new_ctx(n, o->gc);
    c->font = o->font;
    n->first = c;
    if (!offscreen)
        XMapWindow(DPY(o), n->xw);
    UNLOCK();
    return c;
}

/* The event channel of a window: events are queued for it from now on. */
void mpdwin_set_channel(void *p)
{
    LOCK();
    USE(c, p, "WinOpen")
    c->w->channel = 1;
    UNLOCK();
}

void mpdwin_set_event_mask(void *p, int m)
{
    LOCK();
    USE(c, p, "WinSetEventMask")
    c->w->mask = m & EV_ALL;
    XSelectInput(DPY(c), c->w->xw, x_mask(c->w->mask));
    UNLOCK();
}

static void kill_tree(top *t, win *w)
{
    for (win *k = t->wins; k; k = k->next)
        if (k->parent == w && !k->dead)
            kill_tree(t, k);
    w->dead = 1;
    XFreePixmap(t->dpy, w->pm);
}

/* Subwindows only: a top-level window goes with WinClose. */
void mpdwin_destroy(void *p)
{
    LOCK();
    USE(c, p, "WinDestroyWindow")
    win *w = c->w;
    if (w->parent) {
        XDestroyWindow(DPY(c), w->xw);
        kill_tree(w->t, w);
        XFlush(w->t->dpy);
    }
    UNLOCK();
}

void mpdwin_close(void *p)
{
    LOCK();
    USE(c, p, "WinClose")
    top *t = c->w->t;
    for (win *k = t->wins; k; k = k->next)
        k->dead = 1;
    t->closed = 1;
    XCloseDisplay(t->dpy);
    t->dpy = NULL;
    UNLOCK();
}

void *mpdwin_new_context(void *p)
{
    LOCK();
    USE(o, p, "WinNewContext", NULL)
    ctx *c = new_ctx(o->w, o->gc);
    c->font = o->font;
    UNLOCK();
    return c;
}

void mpdwin_copy_context(void *src, void *dst)
{
    LOCK();
    USE(s, src, "WinCopyContext")
    USE(d, dst, "WinCopyContext")
    XCopyGC(DPY(s), s->gc, (1UL << (GCLastBit + 1)) - 1, d->gc);
    d->font = s->font;
    UNLOCK();
}

/* ---- colours ---- */

/* A colour name or #rgb spec as a pixel; -1 if the server does not know it. */
static long pixel_of(top *t, const char *name)
{
    XColor c;
    if (!name || !XParseColor(t->dpy, t->cmap, name, &c) || !XAllocColor(t->dpy, t->cmap, &c))
        return -1;
    return (long)c.pixel;
}

void *mpdwin_set_border(void *p, int width, const char *color)
{
    LOCK();
    USE(c, p, "WinSetBorder", NULL)
    long px = pixel_of(c->w->t, color);
    XSetWindowBorderWidth(DPY(c), c->w->xw, (unsigned)(width < 0 ? 0 : width));
    if (px >= 0)
        XSetWindowBorder(DPY(c), c->w->xw, (unsigned long)px);
    UNLOCK();
    return px < 0 ? NULL : (void *)(uintptr_t)px;
}

/* WinSetForeground/Background: the pixel, or null for an unknown colour
 * (the drawing colour stays as it was). */
void *mpdwin_set_color(void *p, const char *color, int background)
{
    LOCK();
    USE(c, p, background ? "WinSetBackground" : "WinSetForeground", NULL)
    long px = pixel_of(c->w->t, color);
    if (px >= 0) {
        if (background)
            XSetBackground(DPY(c), c->gc, (unsigned long)px);
        else
            XSetForeground(DPY(c), c->gc, (unsigned long)px);
    }
    UNLOCK();
    return px < 0 ? NULL : (void *)(uintptr_t)px;
}

void mpdwin_set_pixel(void *p, void *pv, int background)
{
    LOCK();
    USE(c, p, background ? "WinSetBackgroundByPixel" : "WinSetForegroundByPixel")
    if (background)
        XSetBackground(DPY(c), c->gc, (unsigned long)(uintptr_t)pv);
    else
        XSetForeground(DPY(c), c->gc, (unsigned long)(uintptr_t)pv);
    UNLOCK();
}

/* ---- output ---- */

/* Draw with `op` on the pixmap and, while output is on, on the window. */
#define DRAW(c, op)                                                                                \
    do {                                                                                           \
        Drawable dr_ = (c)->w->pm;                                                                 \
        op;                                                                                        \
        if ((c)->w->t->output) {                                                                   \
            dr_ = (c)->w->xw;                                                                      \
            op;                                                                                    \
        }                                                                                          \
    } while (0)

void mpdwin_flush(void *p)
{
    LOCK();
    USE(c, p, "WinFlush")
    XFlush(DPY(c));
    UNLOCK();
}

void mpdwin_sync(void *p, int discard)
{
    LOCK();
    USE(c, p, "WinSync")
    XSync(DPY(c), discard ? True : False);
    UNLOCK();
}

void mpdwin_bell(void *p, int percent)
{
    LOCK();
    USE(c, p, "WinBell")
    XBell(DPY(c), percent < -100 ? -100 : percent > 100 ? 100 : percent);
    UNLOCK();
}

void mpdwin_pixel(void *p, int x, int y)
{
    LOCK();
    USE(c, p, "WinDrawPixel")
    DRAW(c, XDrawPoint(DPY(c), dr_, c->gc, x, y));
    UNLOCK();
}

void mpdwin_line(void *p, int x1, int y1, int x2, int y2)
{
    LOCK();
    USE(c, p, "WinDrawLine")
    DRAW(c, XDrawLine(DPY(c), dr_, c->gc, x1, y1, x2, y2));
    UNLOCK();
}

/* xy holds n points as x1 y1 x2 y2 ...; how: 0 polyline, 1 polygon, 2 filled */
void mpdwin_poly(void *p, const int *xy, int n, int how)
{
    LOCK();
    USE(c, p, how == 2 ? "WinFillPolygon" : how ? "WinDrawPolygon" : "WinDrawPolyline")
    if (n > 0) {
        XPoint *pt = malloc(sizeof *pt * (size_t)(n + 1));
        if (!pt)
            mpd_rts_fatal("MPDWin: out of memory");
        for (int i = 0; i < n; i++) {
            pt[i].x = (short)xy[2 * i];
            pt[i].y = (short)xy[2 * i + 1];
        }
        pt[n] = pt[0];
        if (how == 2)
            DRAW(c, XFillPolygon(DPY(c), dr_, c->gc, pt, n, Complex, CoordModeOrigin));
        else
            DRAW(c, XDrawLines(DPY(c), dr_, c->gc, pt, how ? n + 1 : n, CoordModeOrigin));
        free(pt);
    }
    UNLOCK();
}

void mpdwin_rectangle(void *p, int x, int y, int w, int h, int fill)
{
    LOCK();
    USE(c, p, fill ? "WinFillRectangle" : "WinDrawRectangle")
    if (w >= 0 && h >= 0) {
        if (fill)
            DRAW(c, XFillRectangle(DPY(c), dr_, c->gc, x, y, (unsigned)w, (unsigned)h));
        else
            DRAW(c, XDrawRectangle(DPY(c), dr_, c->gc, x, y, (unsigned)w, (unsigned)h));
    }
    UNLOCK();
}

/* Angles in degrees, as MPDWin has them (X counts 1/64 degree). */
void mpdwin_arc(void *p, int x, int y, int w, int h, int a1, int a2, int fill)
{
    LOCK();
    USE(c, p, fill ? "WinFillArc" : "WinDrawArc")
    if (w >= 0 && h >= 0) {
        if (fill)
            DRAW(c, XFillArc(DPY(c), dr_, c->gc, x, y, (unsigned)w, (unsigned)h, a1 * 64, a2 * 64));
        else
            DRAW(c, XDrawArc(DPY(c), dr_, c->gc, x, y, (unsigned)w, (unsigned)h, a1 * 64, a2 * 64));
    }
    UNLOCK();
}

/* A width or height of 0 reaches the window's edge, as in XClearArea. */
static void fill_area(ctx *c, GC gc, int x, int y, int w, int h)
{
    if (w == 0)
        w = c->w->w - x;
    if (h == 0)
        h = c->w->h - y;
    if (w > 0 && h > 0)
        DRAW(c, XFillRectangle(DPY(c), dr_, gc, x, y, (unsigned)w, (unsigned)h));
}

/* With the window background; the context's clipping does not apply. */
void mpdwin_clear_area(void *p, int x, int y, int w, int h)
{
    LOCK();
    USE(c, p, "WinClearArea")
    XSetForeground(DPY(c), c->w->t->plain, c->w->bg);
    fill_area(c, c->w->t->plain, x, y, w, h);
    UNLOCK();
}

/* With the context's background colour (and its clipping). */
void mpdwin_erase_area(void *p, int x, int y, int w, int h)
{
    LOCK();
    USE(c, p, "WinEraseArea")
    XGCValues v;
    XGetGCValues(DPY(c), c->gc, GCForeground | GCBackground, &v);
    XSetForeground(DPY(c), c->gc, v.background);
    fill_area(c, c->gc, x, y, w, h);
    XSetForeground(DPY(c), c->gc, v.foreground);
    UNLOCK();
}

void mpdwin_copy_area(void *src, void *dst, int sx, int sy, int w, int h, int dx, int dy)
{
    LOCK();
    USE(s, src, "WinCopyArea")
    USE(d, dst, "WinCopyArea")
    if (s->w->t != d->w->t)
        mpd_rts_fatal("MPDWin: WinCopyArea: the windows are on different displays");
    if (w > 0 && h > 0) {
        XCopyArea(DPY(d), s->w->pm, d->w->pm, d->gc, sx, sy, (unsigned)w, (unsigned)h, dx, dy);
        if (d->w->t->output)
            XCopyArea(DPY(d), d->w->pm, d->w->xw, d->w->t->plain, dx, dy, (unsigned)w, (unsigned)h,
                      dx, dy);
    }
    UNLOCK();
}

void mpdwin_string(void *p, int x, int y, const char *s, int image)
{
    LOCK();
    USE(c, p, image ? "WinDrawImageString" : "WinDrawString")
    int n = (int)strlen(s);
    if (image)
        DRAW(c, XDrawImageString(DPY(c), dr_, c->gc, x, y, s, n));
    else
        DRAW(c, XDrawString(DPY(c), dr_, c->gc, x, y, s, n));
    UNLOCK();
}

/* ---- attributes ---- */

void mpdwin_line_attr(void *p, int width, int style, int cap, int join)
{
    /* MPDWin's line styles are listed Solid, DoubleDash, OnOffDash */
    static const int styles[] = {LineSolid, LineDoubleDash, LineOnOffDash};
    LOCK();
    USE(c, p, "WinSetLineAttr")
    XSetLineAttributes(DPY(c), c->gc, (unsigned)(width < 0 ? 0 : width), styles[style % 3], cap & 3,
                       join % 3);
    UNLOCK();
}

void mpdwin_fill_attr(void *p, int style, int rule)
{
    /* MPDWin's fill styles are listed Solid, Tiled, OpaqueStippled, Stippled */
    static const int styles[] = {FillSolid, FillTiled, FillOpaqueStippled, FillStippled};
    LOCK();
    USE(c, p, "WinSetFillAttr")
    XSetFillStyle(DPY(c), c->gc, styles[style & 3]);
    XSetFillRule(DPY(c), c->gc, rule ? WindingRule : EvenOddRule);
    UNLOCK();
}

/* The dash list's characters are the dash lengths, as in XSetDashes. */
void mpdwin_dashes(void *p, int offset, const char *list)
{
    LOCK();
    USE(c, p, "WinSetDashes")
    int n = (int)strlen(list);
    if (n > 0)
        XSetDashes(DPY(c), c->gc, offset, list, n);
    UNLOCK();
}

void mpdwin_arc_mode(void *p, int mode)
{
    LOCK();
    USE(c, p, "WinSetArcMode")
    XSetArcMode(DPY(c), c->gc, mode ? ArcPieSlice : ArcChord);
    UNLOCK();
}

/* MPDWin's Op_ values are X's GX function codes. */
void mpdwin_draw_op(void *p, int op)
{
    LOCK();
    USE(c, p, "WinSetDrawOp")
    XSetFunction(DPY(c), c->gc, op & 15);
    UNLOCK();
}

/* rects holds n rectangles as x y w h ... */
void mpdwin_clip(void *p, int ox, int oy, const int *r, int n)
{
    LOCK();
    USE(c, p, "WinSetClipRectangles")
    XRectangle *xr = malloc(sizeof *xr * (size_t)(n > 0 ? n : 1));
    if (!xr)
        mpd_rts_fatal("MPDWin: out of memory");
    for (int i = 0; i < n; i++) {
        xr[i].x = (short)r[4 * i];
        xr[i].y = (short)r[4 * i + 1];
        xr[i].width = (unsigned short)(r[4 * i + 2] < 0 ? 0 : r[4 * i + 2]);
        xr[i].height = (unsigned short)(r[4 * i + 3] < 0 ? 0 : r[4 * i + 3]);
    }
    XSetClipRectangles(DPY(c), c->gc, ox, oy, xr, n, Unsorted);
    free(xr);
    UNLOCK();
}

/* ---- windows on the screen ---- */

/* what: 0 map, 1 unmap, 2 map children, 3 unmap children, 4 raise, 5 lower */
void mpdwin_map(void *p, int what)
{
    LOCK();
    USE(c, p, "WinMapWindow")
    Display *d = DPY(c);
    Window w = c->w->xw;
    switch (what) {
    case 0:
        XMapWindow(d, w);
        break;
    case 1:
        XUnmapWindow(d, w);
        break;
    case 2:
        XMapSubwindows(d, w);
        break;
    case 3:
        XUnmapSubwindows(d, w);
        break;
    case 4:
        XRaiseWindow(d, w);
        break;
    default:
        XLowerWindow(d, w);
        break;
    }
    UNLOCK();
}

void mpdwin_move(void *p, int x, int y)
{
    LOCK();
    USE(c, p, "WinMoveWindow")
    XMoveWindow(DPY(c), c->w->xw, x, y);
    UNLOCK();
}

void mpdwin_set_labels(void *p, const char *wlab, const char *ilab)
{
    LOCK();
    USE(c, p, "WinSetLabels")
    win *w = c->w;
    while (w->parent)
        w = w->parent;
    XStoreName(DPY(c), w->xw, wlab);
    XSetIconName(DPY(c), w->xw, ilab);
    UNLOCK();
}

static void repaint(top *t, win *w, int x, int y, int wd, int ht)
{
    if (!w->dead)
        XCopyArea(t->dpy, w->pm, w->xw, t->plain, x, y, (unsigned)wd, (unsigned)ht, x, y);
}

/* on: 1 enable, 0 disable, -1 update (repaint every window from its pixmap) */
void mpdwin_output(void *p, int on)
{
    LOCK();
    USE(c, p, "WinUpdateWindow")
    top *t = c->w->t;
    if (on != 0)
        for (win *k = t->wins; k; k = k->next)
            repaint(t, k, 0, 0, k->w, k->h);
    if (on >= 0)
        t->output = on;
    XFlush(t->dpy);
    UNLOCK();
}

void mpdwin_set_poll(void *p, int ms)
{
    LOCK();
    USE(c, p, "WinSetPoll")
    c->w->t->poll_ms = ms > 0 ? ms : 1;
    UNLOCK();
}

int mpdwin_poll(void *p)
{
    LOCK();
    ctx *c = p;
    int ms = c ? c->w->t->poll_ms : 100;
    UNLOCK();
    return ms;
}

/* ---- fonts and cursors ---- */

void *mpdwin_default_font(void *p)
{
    LOCK();
    USE(c, p, "WinDefaultFont", NULL)
    void *f = c->w->t->font;
    UNLOCK();
    return f;
}

void *mpdwin_load_font(void *p, const char *name)
{
    LOCK();
    USE(c, p, "WinLoadFont", NULL)
    void *f = XLoadQueryFont(DPY(c), name);
    UNLOCK();
    return f;
}

void mpdwin_set_font(void *p, void *font)
{
    LOCK();
    USE(c, p, "WinSetFont")
    if (font) {
        XSetFont(DPY(c), c->gc, ((XFontStruct *)font)->fid);
        c->font = font;
    }
    UNLOCK();
}

void mpdwin_free_font(void *p, void *font)
{
    LOCK();
    USE(c, p, "WinFreeFont")
    if (font && font != c->w->t->font)
        XFreeFont(DPY(c), font);
    UNLOCK();
}

static XFontStruct *font_of(void *f, const char *what)
{
    if (!f)
        mpd_rts_fatal("MPDWin: %s: the font is null", what);
    return f;
}

int mpdwin_text_width(void *f, const char *s)
{
    LOCK();
    int w = XTextWidth(font_of(f, "WinTextWidth"), s, (int)strlen(s));
    UNLOCK();
    return w;
}

int mpdwin_font_ascent(void *f)
{
    return font_of(f, "WinFontAscent")->ascent;
}

int mpdwin_font_descent(void *f)
{
    return font_of(f, "WinFontDescent")->descent;
}

/* MPDWin's cursor list is cursorfont.h's in order, every shape being even;
 * the last one (XC_None) is no cursor of our own. */
void *mpdwin_create_cursor(void *p, int shape)
{
    LOCK();
    USE(c, p, "WinCreateCursor", NULL)
    void *r = NULL;
    if (shape >= 0 && 2 * shape < XC_num_glyphs)
        r = (void *)(uintptr_t)XCreateFontCursor(DPY(c), (unsigned)(2 * shape));
    UNLOCK();
    return r;
}

int mpdwin_set_cursor(void *p, void *cur, const char *fg, const char *bg)
{
    LOCK();
    USE(c, p, "WinSetCursor", 0)
    Display *d = DPY(c);
    Cursor k = (Cursor)(uintptr_t)cur;
    XColor f, b;
    int ok = 1;
    if (k && XParseColor(d, c->w->t->cmap, fg, &f) && XParseColor(d, c->w->t->cmap, bg, &b))
        XRecolorCursor(d, k, &f, &b);
    else if (k)
        ok = 0;
    XDefineCursor(d, c->w->xw, k);
    UNLOCK();
    return ok;
}

void mpdwin_free_cursor(void *p, void *cur)
{
    LOCK();
    USE(c, p, "WinFreeCursor")
    if (cur)
        XFreeCursor(DPY(c), (Cursor)(uintptr_t)cur);
    UNLOCK();
}

/* ---- images: pixels in the program's memory ---- */

void *mpdwin_create_image(void *p, int depth, int w, int h)
{
    LOCK();
    USE(c, p, "WinCreateImage", NULL)
    Display *d = DPY(c);
    int sc = c->w->t->screen;
    if (depth <= 0)
        depth = DefaultDepth(d, sc);
    XImage *im = NULL;
    if (w > 0 && h > 0) {
        im = XCreateImage(d, DefaultVisual(d, sc), (unsigned)depth, ZPixmap, 0, NULL, (unsigned)w,
                          (unsigned)h, 32, 0);
        if (im) {
            im->data = calloc((size_t)im->bytes_per_line, (size_t)h);
            if (!im->data) {
                XDestroyImage(im);
                im = NULL;
            }
        }
    }
    UNLOCK();
    return im;
}

static XImage *image_of(void *im, const char *what)
{
    if (!im)
        mpd_rts_fatal("MPDWin: %s: the image is null", what);
    return im;
}

void mpdwin_destroy_image(void *im)
{
    XDestroyImage(image_of(im, "WinDestroyImage"));
}

static void inside(XImage *im, int x, int y, const char *what)
{
    if (x < 0 || y < 0 || x >= im->width || y >= im->height)
        mpd_rts_fatal("MPDWin: %s: point (%d,%d) outside the %dx%d image", what, x, y, im->width,
                      im->height);
}

/* Not locked: an image lives in this program only (see mpdwin.3). */
void *mpdwin_get_pixel(void *p, int x, int y)
{
    XImage *im = image_of(p, "WinGetPixel");
    inside(im, x, y, "WinGetPixel");
    return (void *)(uintptr_t)XGetPixel(im, x, y);
}

void mpdwin_put_pixel(void *p, int x, int y, void *pv)
{
    XImage *im = image_of(p, "WinPutPixel");
    inside(im, x, y, "WinPutPixel");
    XPutPixel(im, x, y, (unsigned long)(uintptr_t)pv);
}

void mpdwin_add_pixel(void *p, void *pv)
{
    XAddPixel(image_of(p, "WinAddPixel"), (long)(uintptr_t)pv);
}

void mpdwin_put_image(void *p, void *img, int sx, int sy, int w, int h, int dx, int dy)
{
    LOCK();
    USE(c, p, "WinPutImage")
    XImage *im = image_of(img, "WinPutImage");
    if (w > 0 && h > 0)
        DRAW(c, XPutImage(DPY(c), dr_, c->gc, im, sx, sy, dx, dy, (unsigned)w, (unsigned)h));
    UNLOCK();
}

void mpdwin_get_image(void *p, void *img, int sx, int sy, int w, int h, int dx, int dy)
{
    LOCK();
    USE(c, p, "WinGetImage")
    XImage *im = image_of(img, "WinGetImage");
    if (w > 0 && h > 0)
        XGetSubImage(DPY(c), c->w->pm, sx, sy, (unsigned)w, (unsigned)h, AllPlanes, ZPixmap, im, dx,
                     dy);
    UNLOCK();
}

/* ---- events ---- */

static int bk_of(unsigned state)
{
    int bk = 0;
    if (state & ShiftMask)
        bk |= BK_SHIFT;
    if (state & LockMask)
        bk |= BK_LOCK;
    if (state & ControlMask)
        bk |= BK_CNTRL;
    for (int i = 0; i < 5; i++) {
        if (state & (Mod1Mask << i))
            bk |= BK_MOD1 << i;
        if (state & (Button1Mask << i))
            bk |= BK_BUTTON1 << i;
    }
    return bk;
}

static win *find(top *t, Window xw)
{
    for (win *k = t->wins; k; k = k->next)
        if (k->xw == xw && !k->dead)
            return k;
    return NULL;
}

static void queue(win *w, const event *e)
{
    if (!w->channel || !(w->mask & e->type))
        return;
    event *n = malloc(sizeof *n);
    if (!n)
        mpd_rts_fatal("MPDWin: out of memory");
    *n = *e;
    n->next = NULL;
    if (w->tail)
        w->tail->next = n;
    else
        w->head = n;
    w->tail = n;
}

/* Reads what the server sent: repaints, and queues input events. */
static void pump(top *t)
{
    while (!t->closed && XPending(t->dpy) > 0) {
        XEvent x;
        XNextEvent(t->dpy, &x);
        win *w = find(t, x.xany.window);
        if (!w)
            continue;
        event e = {0};
        switch (x.type) {
        case Expose:
            repaint(t, w, x.xexpose.x, x.xexpose.y, x.xexpose.width, x.xexpose.height);
            continue;
        case ButtonPress:
        case ButtonRelease:
            e.type = x.type == ButtonPress ? EV_BUTTON_DOWN : EV_BUTTON_UP;
            e.x = x.xbutton.x;
            e.y = x.xbutton.y;
            e.bk = bk_of(x.xbutton.state);
            e.data = x.xbutton.button >= 1 && x.xbutton.button <= 5
                         ? BK_BUTTON1 << (x.xbutton.button - 1)
                         : 0;
            break;
        case KeyPress:
        case KeyRelease: {
            char buf[8];
            KeySym ks = 0;
            int n = XLookupString(&x.xkey, buf, sizeof buf, &ks, NULL);
            e.type = x.type == KeyPress ? EV_KEY_DOWN : EV_KEY_UP;
            e.x = x.xkey.x;
            e.y = x.xkey.y;
            e.bk = bk_of(x.xkey.state);
            e.data = n > 0 ? (unsigned char)buf[0] : 0;
            e.keysym = (int)ks;
            break;
        }
        case MotionNotify:
            e.type = EV_POINTER_MOVE;
            e.x = x.xmotion.x;
            e.y = x.xmotion.y;
            e.bk = bk_of(x.xmotion.state);
            break;
        case EnterNotify:
        case LeaveNotify:
            e.type = x.type == EnterNotify ? EV_ENTER : EV_EXIT;
            e.x = x.xcrossing.x;
            e.y = x.xcrossing.y;
            e.bk = bk_of(x.xcrossing.state);
            e.data = x.xcrossing.focus;
            break;
        case ClientMessage:
            if (x.xclient.message_type != t->wm_protocols ||
                (Atom)x.xclient.data.l[0] != t->wm_delete)
                continue;
            e.type = EV_DELETE;
            break;
        default:
            continue;
        }
        queue(w, &e);
    }
}

/* The next event for window p: 1 (fields set), 0 none yet, -1 the window is
 * gone (its event process ends). */
int mpdwin_next_event(void *p, int *type, void **window, int *x, int *y, int *bk, int *data,
                      int *keysym)
{
    LOCK();
    ctx *c = p;
    win *w = c ? c->w : NULL;
    int r = -1;
    if (w && !w->dead && !w->t->closed) {
        pump(w->t);
        r = 0;
        event *e = w->head;
        if (e && !w->dead) {
            w->head = e->next;
            if (!w->head)
                w->tail = NULL;
            *type = e->type;
            *window = w->first;
            *x = e->x;
            *y = e->y;
            *bk = e->bk;
            *data = e->data;
            *keysym = e->keysym;
            free(e);
            r = 1;
        } else if (w->dead || w->t->closed) {
            r = -1;
        }
    }
    UNLOCK();
    return r;
}

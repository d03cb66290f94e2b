/* fault_test.c: a fault in a process (SIGSEGV, SIGBUS, SIGFPE, SIGILL) ends
 * the program with an RTS abort naming the process, what it wrote before
 * first, and status 1 -- never in silence; SIGTERM/SIGHUP flush the output
 * and kill the program with the signal itself.  Each case runs in a child
 * on 1 and on 3 VPs. */
#include <signal.h>
#include "harness.h"

static int *volatile nowhere;

/* x86-64 traps on an integer division by zero; aarch64 and riscv64 give 0
 * or -1 without a signal, so there the SIGFPE is raised */
#if defined(__x86_64__)
static volatile int zero;
static void divide(void *a)
{
    (void)a;
    printf("%d\n", 7 / zero);
}
#define DIVIDE_MSG "RTS abort: integer division by zero in process r.divider"
#else
static void divide(void *a)
{
    (void)a;
    raise(SIGFPE);
}
#define DIVIDE_MSG "RTS abort: arithmetic exception in process r.divider"
#endif
static void deref(void *a)
{
    (void)a;
    printf("%d\n", *nowhere);
}
static void bus(void *a)
{
    (void)a;
    raise(SIGBUS);
}
static void ill(void *a)
{
    (void)a;
    raise(SIGILL);
}
static void term(void *a)
{
    (void)a;
    raise(SIGTERM);
    printf("not reached\n");
}

static void (*which)(void *);
static const char *which_name;

static void body(void *arg)
{
    (void)arg;
    printf("written first"); /* no newline: still buffered */
    mpd_proc_attr at = MPD_PROC_ATTR_INIT;
    at.name = which_name;
    mpd_proc_create(which, NULL, &at);
}

static void expect(void (*fn)(void *), const char *name, int nvp, int status, const char *msg)
{
    char *out;
    which = fn;
    which_name = name;
    int rc = run_child(body, NULL, nvp, &out);
    CHECK_EQ(rc, status);
    CHECK(strstr(out, "written first") == out);
    CHECK(strstr(out, msg) != NULL);
    if (rc != status || !strstr(out, msg))
        fprintf(stderr, "%s on %d VPs: status %d, output:\n%s\n", name, nvp, rc, out);
    free(out);
}

int main(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    for (int nvp = 1; nvp <= 3; nvp += 2) {
        expect(divide, "r.divider", nvp, 1, DIVIDE_MSG);
        expect(deref, "r.reader", nvp, 1,
               "RTS abort: segmentation fault (invalid memory reference) in process r.reader");
        expect(bus, "r.bus", nvp, 1,
               "RTS abort: bus error (invalid memory access) in process r.bus");
        expect(ill, "r.ill", nvp, 1, "RTS abort: illegal instruction in process r.ill");
        expect(term, "r.term", nvp, 256 + SIGTERM, "written first");
    }
#endif
    return t_done("fault_test");
}

/* held_headers.c: message headers and data blocks held by a process that dies come back to the pool.
 *
 * Each case forks a participant of a shared segment, lets it die while it
 * holds part of the pool, reaps, closes the survivors' connections and checks
 * that nothing is queued while the conversation still lives (so the dead's
 * share was released, not swept away by the conversation's deletion) and that
 * the pool is whole again once everyone closed: as many free headers and
 * blocks as right after init, no conversation.
 *   1. A receiver dies in the middle of copying a large message out (the copy
 *      runs without the LNVC lock, holding one reference): its buffer's last
 *      page is PROT_NONE, so the copy faults half way -- a deterministic
 *      "killed mid-copy" (SIGSEGV).
 *   2. A BROADCAST receiver killed (SIGKILL) with a backlog of unread
 *      messages, short and long, while an FCFS receiver of the same
 *      conversation lives on and reads its own copies.
 *   3. A sender killed after sending messages nobody received yet (pending):
 *      it was the conversation's only member, so the reap deletes it.
 * The same checks run with a receiver that exits normally without closing
 * (the reaper treats it as dead too). */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpf_check.h"

#define BIG (40 * 1024)

static mpf_t *m;
static mpf_stats base;

static void wait_byte(int fd)
{
    char c;
    if (read(fd, &c, 1) != 1)
        exit(3);
}

static void pool_is_whole(const char *what)
{
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    if (st.lnvcs != 0 || st.messages_queued != 0 || st.free_messages != base.free_messages ||
        st.free_blocks != base.free_blocks) {
        fprintf(stderr,
                "%s: lnvcs %d, queued %d, free headers %zu of %zu, free blocks %zu of %zu\n", what,
                st.lnvcs, st.messages_queued, st.free_messages, base.free_messages, st.free_blocks,
                base.free_blocks);
        mpf_check_failures++;
    } else {
        printf("%s: pool whole (%zu headers, %zu blocks free)\n", what, st.free_messages,
               st.free_blocks);
    }
}

/* The conversation still lives (its other members hold it), so nothing frees
 * its messages wholesale: what the dead held must have been released. */
static void nothing_queued(const char *what)
{
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    if (st.lnvcs != 1 || st.messages_queued != 0) {
        fprintf(stderr,
                "%s: with the conversation alive, %d conversation(s), %d message(s) still queued\n",
                what, st.lnvcs, st.messages_queued);
        mpf_check_failures++;
    }
}

/* The fault ends the receiver at once, as a kill would (a handler of our own:
 * under a sanitizer, its report would otherwise decide how the child ends). */
static void die_in_copy(int sig)
{
    (void)sig;
    _exit(9);
}

static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(i * 7 + seed);
}

/* 1: the receiver's copy faults half way through a BIG message. */
static void dies_mid_copy(int protocol, const char *what)
{
    int fd[2];
    if (pipe(fd))
        exit(3);
    pid_t p = fork();
    if (p == 0) {
        long pg = sysconf(_SC_PAGESIZE);
        size_t room = ((size_t)BIG / 2 + (size_t)pg - 1) / (size_t)pg *
                      (size_t)pg; /* half the message fits */
        char *buf = mmap(NULL, room + (size_t)pg, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED || mprotect(buf + room, (size_t)pg, PROT_NONE))
            _exit(3);
        struct sigaction sa = {.sa_handler = die_in_copy};
        sigaction(SIGSEGV, &sa, NULL);
        int r = mpf_open_receive(m, 2, "copy", protocol);
        if (r < 0 || write(fd[1], "r", 1) != 1)
            _exit(3);
        mpf_message_receive(m, 2, r, buf, BIG); /* SIGSEGV inside the copy */
        _exit(4);
    }
    wait_byte(fd[0]);
    int s = MUST(mpf_open_send(m, 1, "copy"));
    static char msg[BIG];
    fill(msg, sizeof msg, 1);
    CHECK_RC(mpf_message_send(m, 1, s, msg, sizeof msg), 0);
    int st = 0;
    waitpid(p, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 9); /* it did die in the copy */
    CHECK(mpf_reap(m) >= 1);
    nothing_queued(what);
    MUST(mpf_close_send(m, 1, s));
    pool_is_whole(what);
    close(fd[0]);
    close(fd[1]);
}

/* 2: a BROADCAST receiver dies with unread messages; an FCFS reader lives on. */
static void dies_with_backlog(int how)
{
    int fd[2];
    if (pipe(fd))
        exit(3);
    pid_t p = fork();
    if (p == 0) {
        int r = mpf_open_receive(m, 2, "backlog", MPF_BROADCAST);
        if (r < 0 || write(fd[1], "r", 1) != 1)
            _exit(3);
        static char b[BIG];
        for (int k = 0; k < 3; k++)
            if (mpf_message_receive(m, 2, r, b, sizeof b) < 0)
                _exit(5);
        if (write(fd[1], "3", 1) != 1)
            _exit(3);
        if (how == 0)
            pause(); /* killed with the rest unread */
        _exit(0);    /* or exits without closing */
    }
    wait_byte(fd[0]);
    int f = MUST(mpf_open_receive(m, 0, "backlog", MPF_FCFS));
    int s = MUST(mpf_open_send(m, 1, "backlog"));
    static char msg[BIG], got[BIG];
    for (int k = 0; k < 10; k++) {
        size_t len = k % 2 ? BIG : 100;
        fill(msg, len, k);
        CHECK_RC(mpf_message_send(m, 1, s, msg, len), 0);
    }
    wait_byte(fd[0]);
    if (how == 0)
        kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    CHECK(mpf_reap(m) >= 1);
    for (int k = 0; k < 10; k++) { /* the live FCFS reader still gets every message, intact */
        size_t len = k % 2 ? BIG : 100;
        fill(msg, len, k);
        CHECK_RC(mpf_message_try_receive(m, 0, f, got, sizeof got), (long long)len);
        CHECK(memcmp(got, msg, len) == 0);
    }
    nothing_queued("broadcast receiver died with a backlog");
    MUST(mpf_close_receive(m, 0, f));
    MUST(mpf_close_send(m, 1, s));
    pool_is_whole(how == 0 ? "broadcast receiver killed with 7 unread"
                           : "broadcast receiver exited with 7 unread");
    close(fd[0]);
    close(fd[1]);
}

/* 3: a sender dies with its messages pending (nobody has received them). */
static void sender_dies_pending(void)
{
    int fd[2];
    if (pipe(fd))
        exit(3);
    pid_t p = fork();
    if (p == 0) {
        int s = mpf_open_send(m, 1, "pending");
        static char msg[BIG];
        for (int k = 0; k < 6; k++)
            if (s < 0 || mpf_message_send(m, 1, s, msg, k % 2 ? BIG : 10) < 0)
                _exit(5);
        if (write(fd[1], "s", 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    wait_byte(fd[0]);
    mpf_stats st;
    MUST(mpf_stats_get(m, &st));
    CHECK(st.lnvcs == 1 && st.messages_queued == 6);
    kill(p, SIGKILL);
    waitpid(p, NULL, 0);
    CHECK(mpf_reap(m) >= 1);
    pool_is_whole("sender killed with 6 pending");
    close(fd[0]);
    close(fd[1]);
}

int main(void)
{
    char seg[64];
    snprintf(seg, sizeof seg, "/mpf-held-%d", (int)getpid());
    mpf_options o = {.shm_name = seg,
                     .replace = 1,
                     .max_lnvcs = 4,
                     .max_processes = 4,
                     .max_messages = 256,
                     .pool_bytes = 1 << 20};
    MUST(mpf_init_ex(&m, &o));
    MUST(mpf_stats_get(m, &base));
    for (int round = 0; round < 3; round++) { /* slots and pool reused after each death */
        dies_mid_copy(MPF_FCFS, "FCFS receiver died mid-copy");
        dies_mid_copy(MPF_BROADCAST, "BROADCAST receiver died mid-copy");
        dies_with_backlog(0);
        dies_with_backlog(1);
        sender_dies_pending();
    }
    MUST(mpf_finish(m));
    MUST(mpf_unlink(seg));
    if (mpf_check_failures) {
        fprintf(stderr, "%d check(s) failed\n", mpf_check_failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}

/* fcfs_order.c: blocked FCFS receivers are served in the order they started waiting.
 *
 * Round after round, 4 threads (ids 0-3) block in mpf_message_receive on one
 * FCFS conversation, one after the other (each waits until the previous one
 * is in line); then 4 messages "0".."3" are sent at once.  Receiver k must get
 * message k.  Then the same with a receiver that times out in the middle of
 * the line: it leaves without holding up the ones behind it. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpf/mpf_internal.h"   /* fcfs_waiting: to start the receivers in a known order */
#include "mpf_check.h"

#define NR 4
static mpf_t *m;
static int rid[NR], sid;
static char got[NR][8];
static ssize_t rc[NR];
static long long timeout_of[NR];

static uint32_t in_line(void) {
    mpf_lnvc *l = mpf_lnvc_at(m, mpf_id_slot(m->r, sid));
    mpf_lock_acquire(m, &l->rlock);
    uint32_t n = l->fcfs_waiting;
    mpf_unlock(m, &l->rlock);
    return n;
}

static void *receiver(void *arg) {
    int k = (int)(long)arg;
    memset(got[k], 0, sizeof got[k]);
    rc[k] = timeout_of[k] ? mpf_message_timed_receive(m, k, rid[k], got[k], sizeof got[k] - 1, timeout_of[k])
                          : mpf_message_receive(m, k, rid[k], got[k], sizeof got[k] - 1);
    return NULL;
}

/* Start receivers 0..NR-1 in order; returns once all are in line. */
static void start_line(pthread_t *th) {
    for (int k = 0; k < NR; k++) {
        pthread_create(&th[k], NULL, receiver, (void *)(long)k);
        while (in_line() != (uint32_t)k + 1) usleep(100);
    }
}

int main(void) {
    MUST(mpf_init(&m, 4, 8));
    for (int k = 0; k < NR; k++) rid[k] = MUST(mpf_open_receive(m, k, "line", MPF_FCFS));
    sid = MUST(mpf_open_send(m, 7, "line"));
    int misordered = 0;
    for (int round = 0; round < 20; round++) {
        pthread_t th[NR];
        start_line(th);
        for (int k = 0; k < NR; k++) {
            char msg[2] = {(char)('0' + k), 0};
            MUST(mpf_message_send(m, 7, sid, msg, 1));
        }
        for (int k = 0; k < NR; k++) {
            pthread_join(th[k], NULL);
            CHECK_RC(rc[k], 1);
            if (got[k][0] != '0' + k) misordered++;
        }
    }
    printf("20 rounds of %d: %d receivers served out of arrival order\n", NR, misordered);
    CHECK(misordered == 0);
    /* receiver 1 gives up (timeout) while in line: 0, 2, 3 get messages 0, 1, 2 */
    pthread_t th[NR];
    timeout_of[1] = 100000000; /* 100 ms */
    start_line(th);
    pthread_join(th[1], NULL);
    CHECK_RC(rc[1], -MPF_ETIMEDOUT);
    for (int k = 0; k < NR - 1; k++) {
        char msg[2] = {(char)('0' + k), 0};
        MUST(mpf_message_send(m, 7, sid, msg, 1));
    }
    pthread_join(th[0], NULL);
    pthread_join(th[2], NULL);
    pthread_join(th[3], NULL);
    CHECK(got[0][0] == '0' && got[2][0] == '1' && got[3][0] == '2');
    CHECK(in_line() == 0);
    MUST(mpf_finish(m));
    if (mpf_check_failures) { fprintf(stderr, "%d check(s) failed\n", mpf_check_failures); return 1; }
    printf("ok\n");
    return 0;
}

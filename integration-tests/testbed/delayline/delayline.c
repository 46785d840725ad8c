/*
 * delayline: a user-space Ethernet switch that joins network namespaces through TAP devices and delays every
 * frame by the one-way delay of its (ingress port, egress port) pair. This kernel has no netem; rates are set
 * with tbf on the TAP devices inside the namespaces. See docs/testbed.md.
 *
 *   delayline [-q FRAMES] [-m MIB] [-M MTU] [-r] [-e] [-R] [-s SEED] CONFIG   (CONFIG "-": standard input)
 *
 * -q: frames queued per egress port at most (16384); -m: MiB of frame buffers (256); -M: largest MTU (1500);
 * -r: jitter may reorder; -e: exit when standard input closes (so a parent's death stops us); -R: run as a
 * real-time process (SCHED_FIFO), so other work on a busy machine does not make frames late; -s: jitter seed.
 *
 * CONFIG, one statement a line ('#' starts a comment; ports are numbered from 0 in the order given):
 *   port NETNS DEV             create TAP device DEV in namespace NETNS (/run/netns/NETNS; "-": our own)
 *   rtt I J MS [JITTER_MS]     frames I->J and J->I are each delayed by MS/2 (jitter: uniform in +-JITTER_MS/2)
 *   delay I J MS [JITTER_MS]   frames I->J are delayed by MS (jitter: uniform in +-JITTER_MS)
 * Pairs not named get no delay. Jitter never reorders the frames of one pair unless -r is given.
 *
 * Single-threaded: epoll over the TAP devices, one timerfd armed for the earliest due frame, one min-heap of
 * queued frames ordered by due time (ties by arrival). A unicast frame is read once into a buffer and written
 * from it; broadcast, multicast and unknown destinations are flooded (one copy per egress port, each with
 * its own pair's delay). Buffers come from a fixed pool (-m) and each egress port holds at most -q frames:
 * what does not fit is dropped and counted. Prints "ready" on standard output once every TAP device exists;
 * SIGUSR1 prints counters on standard error; SIGHUP reads the delays from CONFIG again (its ports must stay as
 * they were; frames already queued keep their due times); SIGTERM/SIGINT (or, with -e, the end of standard
 * input) print the counters and exit, which removes the TAP devices.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define USAGE "usage: delayline [-q FRAMES] [-m MIB] [-M MTU] [-r] [-e] [-R] [-s SEED] CONFIG"
#define MAX_PORTS 128
#define MAX_MACS 4096     /* learned addresses; beyond that, unknown destinations are flooded */
#define READ_BATCH 64     /* frames read from one port per wake-up, so no port starves the others */

struct port {
    int fd;
    char ns[64], dev[IFNAMSIZ];
    uint32_t queued;                            /* frames waiting to leave through this port */
    uint64_t rx, tx, drop_queue, drop_nobuf, drop_write;
};

struct frame { uint32_t len; unsigned char data[]; };
struct entry { uint64_t due, seq; struct frame *f; uint32_t out; };
struct mac { unsigned char addr[6]; uint16_t port; };

static struct port ports[MAX_PORTS];
static uint32_t nports;
static uint64_t delay_ns[MAX_PORTS][MAX_PORTS], jitter_ns[MAX_PORTS][MAX_PORTS], last_due[MAX_PORTS][MAX_PORTS];
static struct mac macs[MAX_MACS];
static uint32_t nmacs;

static unsigned char *pool;                     /* frame buffers, slot_size bytes each */
static struct frame **free_list;
static uint32_t nfree, slot_size;
static struct entry *heap;                      /* min-heap on (due, seq); holds at most one entry per slot */
static uint32_t nheap;
static uint64_t seq, late_max_ns, late_sum_ns, released;

static uint32_t queue_limit = 16384, mtu = 1500;
static int allow_reorder, exit_on_stdin, realtime;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("delayline: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static uint64_t next_random(void) { /* xorshift64: jitter needs no better */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- the queue ---------------------------------------------------------------------------------- */

static int before(const struct entry *a, const struct entry *b) {
    return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

static void heap_push(struct entry e) {
    uint32_t i = nheap++;
    while (i > 0 && before(&e, &heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = e;
}

static struct entry heap_pop(void) {
    struct entry top = heap[0], last = heap[--nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= nheap) break;
        if (c + 1 < nheap && before(&heap[c + 1], &heap[c])) c++;
        if (!before(&heap[c], &last)) break;
        heap[i] = heap[c];
        i = c;
    }
    if (nheap > 0) heap[i] = last;
    return top;
}

/* Queues frame f (owned by the queue from now on) to leave through port out at its pair's due time. */
static void enqueue(struct frame *f, uint32_t in, uint32_t out, uint64_t arrival) {
    struct port *p = &ports[out];
    if (p->queued >= queue_limit) {
        p->drop_queue++;
        free_list[nfree++] = f;
        return;
    }
    uint64_t due = arrival + delay_ns[in][out];
    uint64_t j = jitter_ns[in][out];
    if (j > 0) {
        int64_t offset = (int64_t) (next_random() % (2 * j + 1)) - (int64_t) j;
        due = offset < 0 && (uint64_t) -offset > due - arrival ? arrival : due + (uint64_t) offset;
    }
    if (!allow_reorder && due < last_due[in][out]) due = last_due[in][out]; /* jitter, or delays read again */
    last_due[in][out] = due;
    p->queued++;
    heap_push((struct entry) {due, seq++, f, out});
}

/* Writes every frame whose time has come. */
static void release_due(uint64_t now) {
    while (nheap > 0 && heap[0].due <= now) {
        struct entry e = heap_pop();
        struct port *p = &ports[e.out];
        if (write(p->fd, e.f->data, e.f->len) == (ssize_t) e.f->len) p->tx++;
        else p->drop_write++; /* device down, or the namespace's backlog full */
        p->queued--;
        free_list[nfree++] = e.f;
        uint64_t late = now - e.due;
        late_sum_ns += late;
        if (late > late_max_ns) late_max_ns = late;
        released++;
    }
}

/* ---- switching ---------------------------------------------------------------------------------- */

static int mac_port(const unsigned char *addr) {
    for (uint32_t i = 0; i < nmacs; i++)
        if (memcmp(macs[i].addr, addr, 6) == 0) return macs[i].port;
    return -1;
}

static void learn(const unsigned char *src, uint32_t in) {
    if (src[0] & 1) return; /* a group address is never a source */
    for (uint32_t i = 0; i < nmacs; i++)
        if (memcmp(macs[i].addr, src, 6) == 0) {
            macs[i].port = (uint16_t) in; /* the address moved */
            return;
        }
    if (nmacs < MAX_MACS) {
        memcpy(macs[nmacs].addr, src, 6);
        macs[nmacs++].port = (uint16_t) in;
    }
}

static void forward(struct frame *f, uint32_t in, uint64_t arrival) {
    const unsigned char *dst = f->data, *src = f->data + 6;
    learn(src, in);
    int out = dst[0] & 1 ? -1 : mac_port(dst);
    if (out == (int) in) { /* addressed to its own side: nothing to do */
        free_list[nfree++] = f;
        return;
    }
    if (out >= 0) {
        enqueue(f, in, (uint32_t) out, arrival);
        return;
    }
    /* flood: a copy for every other port but the last, which gets the frame itself */
    int last = -1;
    for (uint32_t o = 0; o < nports; o++) {
        if (o == in) continue;
        if (last >= 0) {
            if (nfree == 0) {
                ports[last].drop_nobuf++;
            } else {
                struct frame *copy = free_list[--nfree];
                copy->len = f->len;
                memcpy(copy->data, f->data, f->len);
                enqueue(copy, in, (uint32_t) last, arrival);
            }
        }
        last = (int) o;
    }
    if (last >= 0) enqueue(f, in, (uint32_t) last, arrival);
    else free_list[nfree++] = f;
}

static void read_port(uint32_t in) {
    struct port *p = &ports[in];
    for (int n = 0; n < READ_BATCH; n++) {
        if (nfree == 0) { /* pool empty: take the frame off the device and count it */
            unsigned char scratch[65536];
            if (read(p->fd, scratch, sizeof scratch) < 0) return;
            p->rx++;
            p->drop_nobuf++;
            continue;
        }
        struct frame *f = free_list[nfree - 1];
        ssize_t len = read(p->fd, f->data, slot_size - sizeof(struct frame));
        if (len < 0) {
            if (errno != EAGAIN && errno != EINTR) die("read %s/%s: %s", p->ns, p->dev, strerror(errno));
            return;
        }
        p->rx++;
        if (len < 14) continue; /* not an Ethernet frame; the buffer stays free */
        nfree--;
        f->len = (uint32_t) len;
        forward(f, in, now_ns());
    }
}

/* ---- setup -------------------------------------------------------------------------------------- */

/* Creates TAP device dev in namespace ns (the device goes away when we exit). */
static int open_tap(const char *ns, const char *dev, int home_ns) {
    if (strcmp(ns, "-") != 0) {
        char path[128];
        snprintf(path, sizeof path, "/run/netns/%s", ns);
        int nsfd = open(path, O_RDONLY | O_CLOEXEC);
        if (nsfd < 0) die("namespace %s: %s", path, strerror(errno));
        if (setns(nsfd, CLONE_NEWNET) < 0) die("setns %s: %s", ns, strerror(errno));
        close(nsfd);
    }
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC); /* the device lives where this is opened */
    if (fd < 0) die("/dev/net/tun: %s", strerror(errno));
    struct ifreq ifr = {0};
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) die("TAP %s in %s: %s", dev, ns, strerror(errno));
    if (setns(home_ns, CLONE_NEWNET) < 0) die("setns back: %s", strerror(errno));
    return fd;
}

static void set_delay(uint32_t i, uint32_t j, double ms, double jitter_ms) {
    delay_ns[i][j] = (uint64_t) (ms * 1e6 + 0.5);
    jitter_ns[i][j] = (uint64_t) (jitter_ms * 1e6 + 0.5);
}

/* Reads CONFIG; on a reload only the delays change (every pair not named goes back to no delay). */
static void read_config(FILE *in, int reload) {
    char line[512], word[16], a[64], b[64];
    int lineno = 0;
    unsigned i, j, declared = 0;
    double ms, jitter;
    if (reload) {
        memset(delay_ns, 0, sizeof delay_ns);
        memset(jitter_ns, 0, sizeof jitter_ns);
    }
    while (fgets(line, sizeof line, in)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        if (sscanf(line, "%15s", word) != 1) continue;
        if (strcmp(word, "port") == 0) {
            if (sscanf(line, "%*s %63s %63s", a, b) != 2 || strlen(b) >= IFNAMSIZ) die("line %d: port NETNS DEV", lineno);
            if (declared == MAX_PORTS) die("line %d: more than %d ports", lineno, MAX_PORTS);
            if (reload && (declared >= nports || strcmp(ports[declared].ns, a) || strcmp(ports[declared].dev, b)))
                die("line %d: the ports cannot change on a reload", lineno);
            snprintf(ports[declared].ns, sizeof ports[declared].ns, "%s", a);
            snprintf(ports[declared].dev, sizeof ports[declared].dev, "%s", b);
            declared++;
        } else if (strcmp(word, "rtt") == 0 || strcmp(word, "delay") == 0) {
            jitter = 0;
            int n = sscanf(line, "%*s %u %u %lf %lf", &i, &j, &ms, &jitter);
            if (n < 3 || i >= declared || j >= declared || i == j || !(ms >= 0) || !(jitter >= 0) || ms > 60000)
                die("line %d: %s I J MS [JITTER_MS] with ports declared before and 0 <= MS <= 60000", lineno, word);
            if (word[0] == 'r') {
                set_delay(i, j, ms / 2, jitter / 2);
                set_delay(j, i, ms / 2, jitter / 2);
            } else {
                set_delay(i, j, ms, jitter);
            }
        } else {
            die("line %d: unknown statement '%s'", lineno, word);
        }
    }
    if (declared < 2 || (reload && declared != nports)) die("needs at least two ports, and the same on a reload");
    nports = declared;
}

static void print_stats(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double) ru.ru_utime.tv_sec + (double) ru.ru_stime.tv_sec
               + ((double) ru.ru_utime.tv_usec + (double) ru.ru_stime.tv_usec) / 1e6;
    fprintf(stderr, "delayline: cpu %.3f s, frames released %llu, late mean %.1f us max %.1f us\n", cpu,
            (unsigned long long) released, released ? (double) late_sum_ns / (double) released / 1e3 : 0.0,
            (double) late_max_ns / 1e3);
    for (uint32_t i = 0; i < nports; i++) {
        struct port *p = &ports[i];
        fprintf(stderr, "delayline: port %u %s/%s rx %llu tx %llu drop-queue %llu drop-nobuf %llu drop-write %llu\n",
                i, p->ns, p->dev, (unsigned long long) p->rx, (unsigned long long) p->tx,
                (unsigned long long) p->drop_queue, (unsigned long long) p->drop_nobuf,
                (unsigned long long) p->drop_write);
    }
}

int main(int argc, char **argv) {
    unsigned long mib = 256;
    int opt;
    while ((opt = getopt(argc, argv, "q:m:M:reRs:")) != -1) {
        switch (opt) {
        case 'q': queue_limit = (uint32_t) strtoul(optarg, NULL, 10); break;
        case 'm': mib = strtoul(optarg, NULL, 10); break;
        case 'M': mtu = (uint32_t) strtoul(optarg, NULL, 10); break;
        case 'r': allow_reorder = 1; break;
        case 'e': exit_on_stdin = 1; break;
        case 'R': realtime = 1; break;
        case 's': rng = strtoull(optarg, NULL, 10) | 1; break;
        default: die(USAGE);
        }
    }
    if (optind != argc - 1) die(USAGE);
    if (queue_limit == 0 || mib == 0 || mtu < 68 || mtu > 65521) die("bad -q, -m or -M");
    if (exit_on_stdin && strcmp(argv[optind], "-") == 0) die("-e needs CONFIG from a file");
    const char *config_path = argv[optind];
    FILE *config = strcmp(config_path, "-") == 0 ? stdin : fopen(config_path, "r");
    if (!config) die("%s: %s", config_path, strerror(errno));
    read_config(config, 0);
    if (config != stdin) fclose(config);

    /* frame buffers: slot = header + MTU + Ethernet header and one VLAN tag, 64-byte aligned */
    slot_size = (uint32_t) ((sizeof(struct frame) + mtu + 18 + 63) & ~63UL);
    uint32_t slots = (uint32_t) ((mib << 20) / slot_size);
    pool = malloc((size_t) slots * slot_size);
    free_list = malloc(sizeof *free_list * slots);
    heap = malloc(sizeof *heap * slots);
    if (!pool || !free_list || !heap) die("out of memory for %lu MiB of buffers", mib);
    for (uint32_t s = 0; s < slots; s++) free_list[nfree++] = (struct frame *) (pool + (size_t) s * slot_size);

    prctl(PR_SET_TIMERSLACK, 1UL); /* wake at the due time, not up to 50 us later */
    struct sched_param rt = {.sched_priority = 10};
    if (realtime && sched_setscheduler(0, SCHED_FIFO, &rt) < 0)
        fprintf(stderr, "delayline: -R: %s; running at normal priority\n", strerror(errno));
    int home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home_ns < 0) die("/proc/self/ns/net: %s", strerror(errno));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN};
    for (uint32_t i = 0; i < nports; i++) {
        ports[i].fd = open_tap(ports[i].ns, ports[i].dev, home_ns);
        ev.data.u32 = i;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, ports[i].fd, &ev) < 0) die("epoll: %s", strerror(errno));
    }
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGUSR1);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    int sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    const uint32_t TIMER = MAX_PORTS, SIGNALS = MAX_PORTS + 1, STDIN = MAX_PORTS + 2;
    ev.data.u32 = TIMER;
    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev);
    ev.data.u32 = SIGNALS;
    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev);
    if (exit_on_stdin) {
        ev.data.u32 = STDIN;
        if (epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev) < 0) die("-e: standard input cannot be watched");
    }
    printf("ready\n");
    fflush(stdout);

    uint64_t armed = 0; /* due time the timer is set for; 0: not set */
    for (;;) {
        release_due(now_ns());
        if (nheap > 0 && heap[0].due != armed) {
            armed = heap[0].due;
            struct itimerspec its = {.it_value = {(time_t) (armed / 1000000000ULL), (long) (armed % 1000000000ULL)}};
            timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
        }
        struct epoll_event evs[MAX_PORTS + 3];
        int n = epoll_wait(ep, evs, MAX_PORTS + 3, -1);
        if (n < 0 && errno != EINTR) die("epoll_wait: %s", strerror(errno));
        for (int k = 0; k < n; k++) {
            uint32_t id = evs[k].data.u32;
            if (id < MAX_PORTS) {
                read_port(id);
            } else if (id == TIMER) {
                uint64_t expirations;
                if (read(tfd, &expirations, sizeof expirations) > 0) armed = 0;
            } else if (id == SIGNALS) {
                struct signalfd_siginfo si;
                while (read(sfd, &si, sizeof si) == sizeof si) {
                    if (si.ssi_signo == SIGHUP && config_path[0] == '-' && config_path[1] == 0) {
                        fprintf(stderr, "delayline: SIGHUP ignored: CONFIG was standard input\n");
                        continue;
                    }
                    if (si.ssi_signo == SIGHUP) {
                        if (!(config = fopen(config_path, "r"))) die("%s: %s", config_path, strerror(errno));
                        read_config(config, 1);
                        fclose(config);
                        fprintf(stderr, "delayline: delays read again\n");
                        continue;
                    }
                    print_stats();
                    if (si.ssi_signo != SIGUSR1) return 0;
                }
            } else { /* STDIN */
                char buf[256];
                ssize_t r = read(0, buf, sizeof buf);
                if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
                    print_stats();
                    return 0;
                }
            }
        }
    }
}

/*
 * fsp's native launcher: runs a command in this user's agent (io.fsp.cli.agent) at the cost of a process, not of a
 * JVM. It speaks the agent's frames (Frames.java): HELLO with the request (Request.java), then relays the command's
 * output, answers its password prompts on the terminal without echo, turns SIGINT and SIGTERM into CANCEL, and ends
 * with the command's exit code. When none answers it starts one (AgentClient.start's way: under the start lock, as
 * fsp-agent, in a session of its own, without the command's variables). A directory it may not use is left to the Java
 * launcher to explain (by exec); a command the agent declines, or one the configuration keeps out of it (agent =
 * false), runs in a JVM of its own, as bin/launch runs one with FSP_AGENT=off. bin/launch passes the class path and the
 * command lines in the environment. The socket's name is AgentAddress.key's hash of the same world; a test holds the
 * two to the same answer.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/ioctl.h>
#include <sys/un.h>
#include <termios.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VERSION 1
#define MAX_PAYLOAD (1 << 20)

extern char **environ;

struct buf { char *p; size_t n, cap; };

static void put(struct buf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
        if (!b->p) { perror("fsp"); exit(4); }
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }
static void put_int(struct buf *b, uint32_t v) {
    unsigned char x[4] = {v >> 24, v >> 16, v >> 8, v};
    put(b, x, 4);
}
static void put_string(struct buf *b, const char *s) { put_int(b, strlen(s)); puts_(b, s); }

/* Lines of a newline-separated variable, as an argv prefix. */
static int split_lines(const char *text, char **out, int max) {
    int n = 0;
    char *copy = strdup(text ? text : ""), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save)) {
        if (*l) out[n++] = l;
    }
    return n;
}

/* Replaces this process with `prefix... args...` (prefix from a newline-separated variable, then extra words). */
static void exec_with(const char *prefix_var, const char **extra, int nextra, int argc, char **argv) {
    char **v = calloc(512 + nextra + argc, sizeof *v);
    int n = split_lines(getenv(prefix_var), v, 500);
    if (n == 0) { fprintf(stderr, "fsp: $%s is not set (start fsp through bin/fsp)\n", prefix_var); exit(4); }
    for (int i = 0; i < nextra; i++) v[n++] = (char *) extra[i];
    for (int i = 1; i < argc; i++) v[n++] = argv[i];
    v[n] = NULL;
    execvp(v[0], v);
    fprintf(stderr, "fsp: cannot run %s: %s\n", v[0], strerror(errno));
    exit(4);
}

/* No agent to talk to here: the Java launcher starts one, or says why there is none. */
static void java_launcher(int argc, char **argv) { exec_with("FSP_JAVA_LAUNCHER", NULL, 0, argc, argv); }

/* The command in a JVM of its own: the java of the Java launcher, bin/launch's in-process options. */
static void in_process(int argc, char **argv) {
    char *java[2];
    if (split_lines(getenv("FSP_JAVA_LAUNCHER"), java, 1) != 1) java_launcher(argc, argv);
    setenv("FSP_AGENT", "off", 1);
    char **v = calloc(512 + argc, sizeof *v);
    int n = 0;
    v[n++] = java[0];
    n += split_lines(getenv("FSP_INPROCESS_JVM"), v + n, 500);
    v[n++] = "-cp";
    v[n++] = getenv("FSP_AGENT_CLASSPATH");
    v[n++] = "io.fsp.cli.FspCli";
    for (int i = 1; i < argc; i++) v[n++] = argv[i];
    v[n] = NULL;
    execvp(v[0], v);
    fprintf(stderr, "fsp: cannot run %s: %s\n", v[0], strerror(errno));
    exit(4);
}

static void describe(struct buf *w, const char *path) {
    struct stat st;
    char line[64];
    puts_(w, path);
    puts_(w, " ");
    if (stat(path, &st) == 0) {
        snprintf(line, sizeof line, "%lld %lld", (long long) st.st_size,
                 (long long) st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
        puts_(w, line);
    }
    puts_(w, "\n");
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *) a, *(char *const *) b); }

/* AgentAddress.key: the build (class path entries' names, sizes, times), namespaces, umask, open-files limit. */
static int key(char out[17]) {
    struct buf w = {0};
    char *cp = strdup(getenv("FSP_AGENT_CLASSPATH")), *save = NULL, cwd[4096], link[256];
    if (!getcwd(cwd, sizeof cwd)) return -1;
    for (char *e = strtok_r(cp, ":", &save); e; e = strtok_r(NULL, ":", &save)) {
        char path[8192];
        snprintf(path, sizeof path, e[0] == '/' ? "%s%s" : "%s/%s", e[0] == '/' ? "" : cwd, e);
        size_t len = strlen(path);
        if (len >= 2 && strcmp(path + len - 2, "/*") == 0) {
            path[len - 2] = 0;
            DIR *d = opendir(path);
            if (!d) return -1;
            char **names = NULL;
            size_t n = 0;
            for (struct dirent *de; (de = readdir(d));) {
                size_t l = strlen(de->d_name);
                if (l > 4 && (strcmp(de->d_name + l - 4, ".jar") == 0 || strcmp(de->d_name + l - 4, ".JAR") == 0)) {
                    names = realloc(names, (n + 1) * sizeof *names);
                    asprintf(&names[n++], "%s/%s", path, de->d_name);
                }
            }
            closedir(d);
            qsort(names, n, sizeof *names, by_name);
            for (size_t i = 0; i < n; i++) describe(&w, names[i]);
        } else {
            describe(&w, path);
        }
    }
    const char *ns[] = {"/proc/self/ns/net", "/proc/self/ns/mnt"};
    for (int i = 0; i < 2; i++) {
        ssize_t l = readlink(ns[i], link, sizeof link - 1);
        if (l < 0) return -1;
        put(&w, link, l);
        puts_(&w, "\n");
    }
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    while (status && fgets(line, sizeof line, status)) {
        if (strncmp(line, "Umask:", 6) == 0) puts_(&w, line);
    }
    if (status) fclose(status);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_max == RLIM_INFINITY) snprintf(line, sizeof line, "nofile unlimited\n");
    else snprintf(line, sizeof line, "nofile %llu\n", (unsigned long long) rl.rlim_max);
    puts_(&w, line);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < w.n; i++) {
        h ^= (unsigned char) w.p[i];
        h *= 0x100000001b3ULL;
    }
    snprintf(out, 17, "%016llx", (unsigned long long) h);
    return 0;
}

/* AgentAddress.directory, if it exists, belongs to this user and is rwx------. */
static int directory(char *out, size_t size) {
    const char *named = getenv("FSP_AGENT_DIR"), *runtime = getenv("XDG_RUNTIME_DIR");
    struct stat st;
    if (named && named[0] == '/') snprintf(out, size, "%s", named);
    else if (runtime && runtime[0] == '/' && stat(runtime, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(out, size, "%s/fsp-agent", runtime);
    else snprintf(out, size, "/tmp/fsp-agent-%u", (unsigned) geteuid());
    return lstat(out, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 0777) == 0700 ? 0 : -1;
}

static int sock = -1;
static const unsigned char CANCEL[5] = {'C', 0, 0, 0, 0};

static void on_alarm(int sig) { (void) sig; _exit(130); }

/* SIGINT, SIGTERM: the command is cancelled (its journal stays); it has ten seconds to say how it ended. */
static void on_signal(int sig) {
    (void) sig;
    ssize_t ignored = write(sock, CANCEL, sizeof CANCEL);
    (void) ignored;
    signal(SIGALRM, on_alarm);
    alarm(10);
}

static int read_full(int fd, void *p, size_t n) {
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *) p + got, n - got);
        if (r == 0) return -1;
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        got += r;
    }
    return 0;
}

static void write_full(int fd, const void *p, size_t n) {
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, (const char *) p + done, n - done);
        if (w < 0) { if (errno == EINTR) continue; return; }
        done += w;
    }
}

static void send_frame(char type, const void *p, uint32_t n) {
    unsigned char h[5] = {type, n >> 24, n >> 16, n >> 8, n};
    write_full(sock, h, 5);
    write_full(sock, p, n);
}

/* A password prompt: on the terminal, without echo (as java.io.Console.readPassword). */
static void prompt(const char *text, uint32_t n) {
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY);
    if (tty < 0) { send_frame('N', "", 0); return; }
    /* Echo goes off before the prompt shows: what is typed once it shows is neither echoed nor, as TCSAFLUSH
     * would, thrown away. */
    struct termios old, quiet;
    int echo_off = tcgetattr(tty, &old) == 0;
    if (echo_off) { quiet = old; quiet.c_lflag &= ~ECHO; tcsetattr(tty, TCSANOW, &quiet); }
    write_full(tty, text, n);
    char line[4096];
    size_t len = 0;
    int ended = 0;
    for (char c; len < sizeof line;) {
        ssize_t r = read(tty, &c, 1);
        if (r <= 0 && !(r < 0 && errno == EINTR)) { ended = len == 0; break; }
        if (r < 0) continue;
        if (c == '\n' || c == '\r') break;
        line[len++] = c;
    }
    if (echo_off) tcsetattr(tty, TCSANOW, &old);
    write_full(tty, "\n", 1);
    close(tty);
    if (ended) send_frame('N', "", 0);
    else send_frame('A', line, len);
    memset(line, 0, sizeof line);
}

static int passed(const char *name, size_t len) {
    return (len >= 4 && strncmp(name, "FSP_", 4) == 0) || (len == 4 && strncmp(name, "HOME", 4) == 0)
        || (len == 15 && strncmp(name, "XDG_CONFIG_HOME", 15) == 0) || (len == 7 && strncmp(name, "COLUMNS", 7) == 0)
        || (len == 4 && strncmp(name, "TERM", 4) == 0) || (len == 8 && strncmp(name, "NO_COLOR", 8) == 0);
}

/* Launcher.setting: KEY from the command's client configuration (--config, $FSP_CONFIG, the user's file), or NULL. */
static char *setting(int argc, char **argv, const char *key) {
    static char path[4096], line[4096];
    const char *named = getenv("FSP_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) named = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0) named = argv[i] + 9;
    }
    if (named && *named) {
        if (strcmp(named, "none") == 0) return NULL;
        snprintf(path, sizeof path, "%s", named);
    } else if (xdg && xdg[0] == '/') snprintf(path, sizeof path, "%s/fsp/client.conf", xdg);
    else if (home) snprintf(path, sizeof path, "%s/.config/fsp/client.conf", home);
    else return NULL;
    FILE *f = fopen(path, "r");
    char *found = NULL;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *l = line, *eq = strchr(line, '=');
        while (*l == ' ' || *l == '\t') l++;
        if (*l == '#' || !eq) continue;
        char *end = eq;
        while (end > l && (end[-1] == ' ' || end[-1] == '\t')) end--;
        if ((size_t) (end - l) != strlen(key) || strncmp(l, key, end - l) != 0) continue;
        found = eq + 1;
        while (*found == ' ' || *found == '\t') found++;
        for (char *t = found + strlen(found); t > found && strchr(" \t\r\n", t[-1]); t--) t[-1] = 0;
    }
    if (f) fclose(f);
    return found;
}

static int off(const char *v) {
    return v && (strcasecmp(v, "off") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0);
}

static int connect_to(const struct sockaddr_un *addr) {
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s >= 0 && connect(s, (const struct sockaddr *) addr, sizeof *addr) == 0) return s;
    if (s >= 0) close(s);
    return -1;
}

/* The java bin/launch runs, as an absolute path (the agent's name links to it). */
static int java_path(char *out) {
    char *first[1];
    if (split_lines(getenv("FSP_JAVA_LAUNCHER"), first, 1) != 1) return -1;
    if (strchr(first[0], '/')) return realpath(first[0], out) ? 0 : -1;
    char *paths = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin"), *save = NULL, candidate[PATH_MAX];
    for (char *d = strtok_r(paths, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(candidate, sizeof candidate, "%s/%s", d, first[0]);
        if (access(candidate, X_OK) == 0) return realpath(candidate, out) ? 0 : -1;
    }
    return -1;
}

/*
 * AgentClient.connectOrStart: under the start lock, connects if another launcher started one meanwhile, else starts
 * the agent (DIR/fsp-agent, a link to java, in a session of its own, its output to KEY.log, without the command's
 * variables) and waits for it to answer. Returns the connection, or -1 with *why set.
 */
static int start_agent(const char *dir, const char *k, const struct sockaddr_un *addr, const char *idle, const char **why) {
    char lock[4200], log[4200], name[4200], fresh[4300], java[PATH_MAX], linked[PATH_MAX];
    snprintf(lock, sizeof lock, "%s/%s.lock", dir, k);
    snprintf(log, sizeof log, "%s/%s.log", dir, k);
    snprintf(name, sizeof name, "%s/fsp-agent", dir);
    int lfd = open(lock, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) { *why = "cannot take the start lock"; return -1; }
    int s = connect_to(addr);
    if (s >= 0) { close(lfd); return s; }
    if (java_path(java) != 0) { close(lfd); *why = "no java to start it with"; return -1; }
    ssize_t n = readlink(name, linked, sizeof linked - 1);
    if (n < 0 || (linked[n] = 0, strcmp(linked, java) != 0)) {
        snprintf(fresh, sizeof fresh, "%s.%d", name, (int) getpid());
        unlink(fresh);
        if (symlink(java, fresh) != 0 || rename(fresh, name) != 0) { close(lfd); *why = "cannot link fsp-agent"; return -1; }
    }
    char **args = calloc(520, sizeof *args), **env = calloc(1024, sizeof *env);
    int a = 0, e = 0;
    args[a++] = name;
    a += split_lines(getenv("FSP_AGENT_JVM"), args + a, 500);
    args[a++] = "-cp";
    args[a++] = getenv("FSP_AGENT_CLASSPATH");
    args[a++] = "io.fsp.cli.AgentMain";
    args[a++] = (char *) dir;
    args[a++] = (char *) k;
    args[a++] = (char *) idle;
    for (char **v = environ; *v && e < 1000; v++) {  /* never a password, nor another command's variables */
        char *eq = strchr(*v, '=');
        if (eq && (!passed(*v, eq - *v) || strncmp(*v, "HOME=", 5) == 0)) env[e++] = *v;
    }
    if (!getenv("MALLOC_ARENA_MAX")) env[e++] = "MALLOC_ARENA_MAX=2";
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execve(name, args, env);
        _exit(127);
    }
    if (pid < 0) { close(lfd); *why = "cannot fork"; return -1; }
    struct timespec tick = {0, 5000000};
    for (int i = 0; i < 6000; i++) {  /* 30 s */
        s = connect_to(addr);
        if (s >= 0) { close(lfd); return s; }
        if (waitpid(pid, NULL, WNOHANG) == pid) { close(lfd); *why = "it exited as it started (see its log)"; return -1; }
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGTERM);
    close(lfd);
    *why = "it did not answer in 30 s (see its log)";
    return -1;
}

int main(int argc, char **argv) {
    struct timeval now;
    gettimeofday(&now, NULL);
    long long started = (long long) now.tv_sec * 1000 + now.tv_usec / 1000;
    if (!getenv("FSP_AGENT_CLASSPATH")) java_launcher(argc, argv);
    int verb = argc == 3 && strcmp(argv[1], "agent") == 0;  /* fsp agent start|status|stop: whatever the setting */
    int look = verb && (strcmp(argv[2], "status") == 0 || strcmp(argv[2], "stop") == 0);
    if (!verb && (off(getenv("FSP_AGENT")) || (!getenv("FSP_AGENT") && off(setting(argc, argv, "agent")))))
        in_process(argc, argv);
    char dir[4096], k[17], cwd[4096];
    if (directory(dir, sizeof dir) != 0) {
        struct stat st;  /* a directory to make, or to refuse with the reason: the Java launcher's */
        if (lstat(dir, &st) == 0 || mkdir(dir, 0700) != 0 || directory(dir, sizeof dir) != 0) java_launcher(argc, argv);
    }
    if (key(k) != 0 || !getcwd(cwd, sizeof cwd)) java_launcher(argc, argv);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if ((size_t) snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%s.sock", dir, k) >= sizeof addr.sun_path)
        java_launcher(argc, argv);
    sock = connect_to(&addr);
    if (sock < 0 && look) {
        printf("fsp agent: none running for this user, build and namespace (%s)\n", addr.sun_path);
        return strcmp(argv[2], "status") == 0 ? 1 : 0;
    }
    if (sock < 0) {
        const char *why = NULL, *idle = getenv("FSP_AGENT_IDLE");
        if (!idle) idle = setting(argc, argv, "agent-idle");
        sock = start_agent(dir, k, &addr, idle ? idle : "5m", &why);
        if (sock < 0) {
            fprintf(stderr, "fsp: no agent (%s); running in this process\n", why);
            in_process(argc, argv);
        }
    }

    struct buf hello = {0};
    put_int(&hello, VERSION);
    put_string(&hello, k);
    put_string(&hello, cwd);
    put_int(&hello, isatty(0) && isatty(1) ? 1 : 0);
    put_int(&hello, (uint32_t) (started >> 32));
    put_int(&hello, (uint32_t) started);
    put_int(&hello, (uint32_t) getpid());
    put_int(&hello, argc - 1);
    for (int i = 1; i < argc; i++) put_string(&hello, argv[i]);
    int count = 0;
    struct buf vars = {0};
    for (char **e = environ; *e; e++) {
        char *eq = strchr(*e, '=');
        if (eq && passed(*e, eq - *e) && count < 256) {
            put_int(&vars, eq - *e);
            put(&vars, *e, eq - *e);
            put_string(&vars, eq + 1);
            count++;
        }
    }
    struct winsize ws;  /* the terminal's width, for help text as wide as it, which the agent has no terminal to ask */
    if (!getenv("COLUMNS") && isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && count < 256) {
        char cols[16];
        snprintf(cols, sizeof cols, "%u", (unsigned) ws.ws_col);
        put_string(&vars, "COLUMNS");
        put_string(&vars, cols);
        count++;
    }
    put_int(&hello, count);
    put(&hello, vars.p, vars.n);
    if (hello.n > MAX_PAYLOAD) java_launcher(argc, argv);
    send_frame('H', hello.p, hello.n);

    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    char *payload = malloc(MAX_PAYLOAD + 1);
    for (;;) {
        unsigned char h[5];
        if (read_full(sock, h, 5) != 0) break;
        uint32_t n = (uint32_t) h[1] << 24 | h[2] << 16 | h[3] << 8 | h[4];
        if (n > MAX_PAYLOAD || read_full(sock, payload, n) != 0) break;
        switch (h[0]) {
        case 'O': write_full(1, payload, n); break;
        case 'E': write_full(2, payload, n); break;
        case 'P': prompt(payload, n); break;
        case 'X':
            if (n != 4) break;
            return (int) ((uint32_t) (unsigned char) payload[0] << 24 | (unsigned char) payload[1] << 16
                          | (unsigned char) payload[2] << 8 | (unsigned char) payload[3]);
        case 'D': close(sock); in_process(argc, argv); break;
        default: break;
        }
    }
    fprintf(stderr, "fsp: the agent ended before the command did (see %s/%s.log); rerun the same command to resume\n",
            dir, k);
    return 1;
}

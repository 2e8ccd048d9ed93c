/*
 * The crash-state explorer's recorder (Tests/CrashStateTests): an LD_PRELOAD library that logs,
 * in the order they happen, every call that decides what a power cut can leave of the files
 * under one directory: file creation and truncation at open, write/pwrite/pwrite64 (offset and
 * the bytes), ftruncate/truncate, fsync/fdatasync (of a file, or of a directory: that is what
 * makes a create, rename, link or unlink durable), rename/renameat/renameat2, link/linkat,
 * unlink/unlinkat, mkdir/mkdirat, rmdir.
 *
 * Both writers are covered: SQLCipher 3.4.1 calls open64, pwrite64, fdatasync, ftruncate64 and
 * unlink through libc (nm -D libsqlcipher.so.0), the library's own files go through open,
 * write, pwrite, fsync, rename, link and unlink (Storage/FileIO.swift and its callers).
 *
 * Environment: CRASH_STATES_DIR names the directory (only paths below it, and the directory
 * itself for a directory sync, are logged); CRASH_STATES_LOG the log file (appended to).
 * CRASH_STATES_KILL_AT=N (optional): the process SIGKILLs itself right after its N-th logged
 * call, with that call done and recorded (the session histories' kill inside a write).
 *
 * Log record: one text line "<op> <inode> <number> <length> <path>\n" followed by <length>
 * bytes of payload (the bytes written; the second path of a rename or link; a mark's label).
 * ops: create, trunc (number = new size), write (number = offset), sync, dsync, rename, link,
 * unlink, mkdir, rmdir. The workload writes "mark" records itself (same file, O_APPEND).
 * Each call and its record happen under one mutex, so the log's order is the calls' order.
 *
 * Test code only: nothing here ships. Built by the test with `cc -shared -fPIC ... -ldl`.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static char root[PATH_MAX];
static size_t root_length;
static int log_fd = -1;
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

#define REAL(name) static __typeof__(name) *real_##name; \
    if (!real_##name) real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

static long kill_at = -1;
static long recorded_calls = 0;
static int (*raw_open)(const char *, int, ...);
static ssize_t (*raw_write)(int, const void *, size_t);

__attribute__((constructor)) static void crash_states_init(void) {
    raw_open = dlsym(RTLD_NEXT, "open");
    raw_write = dlsym(RTLD_NEXT, "write");
    const char *dir = getenv("CRASH_STATES_DIR");
    const char *log = getenv("CRASH_STATES_LOG");
    if (!dir || !log || !realpath(dir, root)) return;
    root_length = strlen(root);
    const char *kill = getenv("CRASH_STATES_KILL_AT");
    if (kill) kill_at = strtol(kill, NULL, 10);
    log_fd = raw_open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

/* A path below the root (or the root itself when `allow_root`). */
static int watched(const char *path, int allow_root) {
    if (log_fd < 0 || !path) return 0;
    if (strncmp(path, root, root_length) != 0) return 0;
    if (path[root_length] == '/') return 1;
    return allow_root && path[root_length] == 0;
}

/* The absolute form of `path` relative to `dirfd` (AT_FDCWD or a directory descriptor). */
static void absolute(int dirfd, const char *path, char *out) {
    if (!path) { out[0] = 0; return; }
    if (path[0] == '/') { snprintf(out, PATH_MAX, "%s", path); return; }
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
        if (!getcwd(base, sizeof base)) { out[0] = 0; return; }
    } else {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t n = readlink(link, base, sizeof base - 1);
        if (n < 0) { out[0] = 0; return; }
        base[n] = 0;
    }
    snprintf(out, PATH_MAX, "%s/%s", base, path);
}

/* The path a descriptor refers to now (the kernel's view: renames included). */
static int descriptor_path(int fd, char *out) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, PATH_MAX - 1);
    if (n < 0) return 0;
    out[n] = 0;
    return 1;
}

static uint64_t inode_of_path(const char *path) {
    struct stat info;
    return lstat(path, &info) == 0 ? (uint64_t)info.st_ino : 0;
}

static void record(const char *op, uint64_t inode, int64_t number, const char *path,
                   const void *payload, size_t length) {
    char head[PATH_MAX + 128];
    int head_length = snprintf(head, sizeof head, "%s %llu %lld %zu %s\n", op, (unsigned long long)inode,
                               (long long)number, length, path);
    if (head_length < 0) return;
    size_t total = (size_t)head_length + length;
    char *buffer = malloc(total);
    if (!buffer) abort();
    memcpy(buffer, head, (size_t)head_length);
    if (length) memcpy(buffer + head_length, payload, length);
    /* One write per record: O_APPEND places it whole, after the workload's own marks. */
    size_t done = 0;
    while (done < total) {
        ssize_t n = raw_write(log_fd, buffer + done, total - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) abort();
        done += (size_t)n;
    }
    free(buffer);
    /* The process ends here, as a SIGKILL from outside would end it between this call and
     * the next; the log mutex dies with it. */
    if (kill_at > 0 && ++recorded_calls == kill_at) raise(SIGKILL);
}

/* A descriptor below the root: its path and inode; 2 for a directory, 1 for a file, 0 else. */
static int watched_descriptor(int fd, char *path, uint64_t *inode) {
    if (log_fd < 0 || fd == log_fd) return 0;
    if (!descriptor_path(fd, path) || !watched(path, 1)) return 0;
    struct stat info;
    if (fstat(fd, &info) != 0) return 0;
    *inode = (uint64_t)info.st_ino;
    if (S_ISDIR(info.st_mode)) return 2;
    if (S_ISREG(info.st_mode) && strcmp(path, root) != 0) return 1;
    return 0;
}

/* ---- open: creation and truncation ---- */

static int open_common(int dirfd, const char *path, int flags, mode_t mode,
                       int (*call)(int, const char *, int, mode_t)) {
    char full[PATH_MAX];
    absolute(dirfd, path, full);
    if (!watched(full, 0) || !(flags & (O_CREAT | O_TRUNC))) return call(dirfd, path, flags, mode);
    pthread_mutex_lock(&log_mutex);
    struct stat before;
    int existed = lstat(full, &before) == 0;
    int saved;
    int fd = call(dirfd, path, flags, mode);
    saved = errno;
    if (fd >= 0) {
        struct stat after;
        if (fstat(fd, &after) == 0 && S_ISREG(after.st_mode)) {
            if (!existed) record("create", (uint64_t)after.st_ino, 0, full, NULL, 0);
            else if ((flags & O_TRUNC) && before.st_size > 0) record("trunc", (uint64_t)after.st_ino, 0, full, NULL, 0);
        }
    }
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return fd;
}

static int call_open(int dirfd, const char *path, int flags, mode_t mode) {
    (void)dirfd;
    REAL(open);
    return real_open(path, flags, mode);
}
static int call_open64(int dirfd, const char *path, int flags, mode_t mode) {
    (void)dirfd;
    REAL(open64);
    return real_open64(path, flags, mode);
}
static int call_openat(int dirfd, const char *path, int flags, mode_t mode) {
    REAL(openat);
    return real_openat(dirfd, path, flags, mode);
}
static int call_openat64(int dirfd, const char *path, int flags, mode_t mode) {
    REAL(openat64);
    return real_openat64(dirfd, path, flags, mode);
}

static mode_t mode_argument(int flags, va_list arguments) {
    if (flags & (O_CREAT | __O_TMPFILE)) return (mode_t)va_arg(arguments, int);
    return 0;
}

int open(const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_common(AT_FDCWD, path, flags, mode, call_open);
}
int open64(const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_common(AT_FDCWD, path, flags, mode, call_open64);
}
int openat(int dirfd, const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_common(dirfd, path, flags, mode, call_openat);
}
int openat64(int dirfd, const char *path, int flags, ...) {
    va_list arguments; va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    return open_common(dirfd, path, flags, mode, call_openat64);
}
int creat(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, call_open);
}
int creat64(const char *path, mode_t mode) {
    return open_common(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode, call_open64);
}
/* The fortified entry points (open without a mode, _FORTIFY_SOURCE). */
int __open_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, call_open); }
int __open64_2(const char *path, int flags) { return open_common(AT_FDCWD, path, flags, 0, call_open64); }

/* ---- data ---- */

static ssize_t write_common(int fd, const void *buffer, size_t count, off_t offset, int positional,
                            ssize_t (*call)(int, const void *, size_t, off_t)) {
    char path[PATH_MAX];
    uint64_t inode;
    if (log_fd < 0 || fd < 0 || fd == log_fd || fd <= 2) return call(fd, buffer, count, offset);
    if (watched_descriptor(fd, path, &inode) != 1) return call(fd, buffer, count, offset);
    pthread_mutex_lock(&log_mutex);
    off_t at = offset;
    if (!positional) {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0 && (flags & O_APPEND)) {
            struct stat info;
            at = fstat(fd, &info) == 0 ? info.st_size : 0;
        } else {
            at = lseek(fd, 0, SEEK_CUR);
        }
    }
    ssize_t n = call(fd, buffer, count, offset);
    int saved = errno;
    if (n > 0) record("write", inode, (int64_t)at, path, buffer, (size_t)n);
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return n;
}

static ssize_t call_write(int fd, const void *buffer, size_t count, off_t offset) {
    (void)offset;
    REAL(write);
    return real_write(fd, buffer, count);
}
static ssize_t call_pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    return real_pwrite(fd, buffer, count, offset);
}
static ssize_t call_pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite64);
    return real_pwrite64(fd, buffer, count, offset);
}

ssize_t write(int fd, const void *buffer, size_t count) { return write_common(fd, buffer, count, 0, 0, call_write); }
ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) { return write_common(fd, buffer, count, offset, 1, call_pwrite); }
ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) { return write_common(fd, buffer, count, offset, 1, call_pwrite64); }

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    char path[PATH_MAX];
    uint64_t inode;
    if (watched_descriptor(fd, path, &inode) != 1) return real_ftruncate(fd, length);
    pthread_mutex_lock(&log_mutex);
    int result = real_ftruncate(fd, length);
    int saved = errno;
    if (result == 0) record("trunc", inode, (int64_t)length, path, NULL, 0);
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

int truncate(const char *path, off_t length) {
    REAL(truncate);
    char full[PATH_MAX];
    absolute(AT_FDCWD, path, full);
    if (!watched(full, 0)) return real_truncate(path, length);
    pthread_mutex_lock(&log_mutex);
    int result = real_truncate(path, length);
    int saved = errno;
    if (result == 0) record("trunc", inode_of_path(full), (int64_t)length, full, NULL, 0);
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
int truncate64(const char *path, off_t length) { return truncate(path, length); }

/* ---- syncs ---- */

static int sync_common(int fd, int (*call)(int)) {
    char path[PATH_MAX];
    uint64_t inode;
    int kind = watched_descriptor(fd, path, &inode);
    if (!kind) return call(fd);
    pthread_mutex_lock(&log_mutex);
    int result = call(fd);
    int saved = errno;
    if (result == 0) record(kind == 2 ? "dsync" : "sync", inode, 0, path, NULL, 0);
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
static int call_fsync(int fd) { REAL(fsync); return real_fsync(fd); }
static int call_fdatasync(int fd) { REAL(fdatasync); return real_fdatasync(fd); }
int fsync(int fd) { return sync_common(fd, call_fsync); }
int fdatasync(int fd) { return sync_common(fd, call_fdatasync); }

/* ---- directory entries ---- */

static int rename_common(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags) {
    REAL(renameat2);
    char from[PATH_MAX], to[PATH_MAX];
    absolute(olddirfd, oldpath, from);
    absolute(newdirfd, newpath, to);
    if (!watched(from, 0) && !watched(to, 0)) return real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
    pthread_mutex_lock(&log_mutex);
    uint64_t inode = inode_of_path(from);
    int result = real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
    int saved = errno;
    if (result == 0) record("rename", inode, 0, from, to, strlen(to));
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
int rename(const char *oldpath, const char *newpath) { return rename_common(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0); }
int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
    return rename_common(olddirfd, oldpath, newdirfd, newpath, 0);
}
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned flags) {
    return rename_common(olddirfd, oldpath, newdirfd, newpath, flags);
}

static int link_common(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags) {
    REAL(linkat);
    char from[PATH_MAX], to[PATH_MAX];
    absolute(olddirfd, oldpath, from);
    absolute(newdirfd, newpath, to);
    if (!watched(from, 0) && !watched(to, 0)) return real_linkat(olddirfd, oldpath, newdirfd, newpath, flags);
    pthread_mutex_lock(&log_mutex);
    uint64_t inode = inode_of_path(from);
    int result = real_linkat(olddirfd, oldpath, newdirfd, newpath, flags);
    int saved = errno;
    if (result == 0) record("link", inode, 0, from, to, strlen(to));
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
int link(const char *oldpath, const char *newpath) { return link_common(AT_FDCWD, oldpath, AT_FDCWD, newpath, 0); }
int linkat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, int flags) {
    return link_common(olddirfd, oldpath, newdirfd, newpath, flags);
}

static int unlink_common(int dirfd, const char *path, int flags) {
    REAL(unlinkat);
    char full[PATH_MAX];
    absolute(dirfd, path, full);
    if (!watched(full, 0)) return real_unlinkat(dirfd, path, flags);
    pthread_mutex_lock(&log_mutex);
    uint64_t inode = inode_of_path(full);
    int result = real_unlinkat(dirfd, path, flags);
    int saved = errno;
    if (result == 0) record((flags & AT_REMOVEDIR) ? "rmdir" : "unlink", inode, 0, full, NULL, 0);
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
int unlink(const char *path) { return unlink_common(AT_FDCWD, path, 0); }
int unlinkat(int dirfd, const char *path, int flags) { return unlink_common(dirfd, path, flags); }
int rmdir(const char *path) { return unlink_common(AT_FDCWD, path, AT_REMOVEDIR); }

static int mkdir_common(int dirfd, const char *path, mode_t mode) {
    REAL(mkdirat);
    char full[PATH_MAX];
    absolute(dirfd, path, full);
    if (!watched(full, 0)) return real_mkdirat(dirfd, path, mode);
    pthread_mutex_lock(&log_mutex);
    int result = real_mkdirat(dirfd, path, mode);
    int saved = errno;
    if (result == 0) record("mkdir", inode_of_path(full), 0, full, NULL, 0);
    pthread_mutex_unlock(&log_mutex);
    errno = saved;
    return result;
}
int mkdir(const char *path, mode_t mode) { return mkdir_common(AT_FDCWD, path, mode); }
int mkdirat(int dirfd, const char *path, mode_t mode) { return mkdir_common(dirfd, path, mode); }

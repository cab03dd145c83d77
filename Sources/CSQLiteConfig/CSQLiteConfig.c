#include "CSQLiteConfig.h"

// The vendored SQLite's own declarations (VaporCSQLite's header is not exported to dependents):
// the symbols are linked in with SQLiteNIO.
int sqlite_nio_sqlite3_db_config(void *db, int op, ...);
int sqlite_nio_sqlite3_config(int op, ...);

// From sqlite3.h: stable constants of SQLite's interface.
#define STOREKEEPER_SQLITE_DBCONFIG_ENABLE_QPSG 1007
#define STOREKEEPER_SQLITE_CONFIG_STMTJRNL_SPILL 26

int storekeeper_sqlite_enable_qpsg(void *db) {
    int enabled = 0;
    int status = sqlite_nio_sqlite3_db_config(db, STOREKEEPER_SQLITE_DBCONFIG_ENABLE_QPSG, 1, &enabled);
    if (status != 0) return status;
    return enabled == 1 ? 0 : 1;
}

static int statement_journal_status = -1;

// `sqlite3_config` works only before SQLite initializes itself (at the first connection), so it
// runs as the program loads.
static void storekeeper_sqlite_register_log_vfs(void);

__attribute__((constructor)) static void storekeeper_sqlite_configure(void) {
    statement_journal_status =
        sqlite_nio_sqlite3_config(STOREKEEPER_SQLITE_CONFIG_STMTJRNL_SPILL, STOREKEEPER_SQLITE_STATEMENT_JOURNAL_BYTES);
    // After the configuration: finding the default VFS initializes SQLite.
    storekeeper_sqlite_register_log_vfs();
}

int storekeeper_sqlite_statement_journal_status(void) {
    return statement_journal_status;
}

// MARK: - The writer's log, written a transaction at a time

#include <stdlib.h>
#include <string.h>

// From sqlite3.h: the stable shapes of SQLite's VFS interface (version 3), which its header
// (not exported by SQLiteNIO) declares the same way.
typedef long long sk_int64;
typedef struct sk_file sk_file;
typedef struct sk_io_methods sk_io_methods;
typedef struct sk_vfs sk_vfs;
struct sk_file {
    const sk_io_methods *pMethods;
};
struct sk_io_methods {
    int iVersion;
    int (*xClose)(sk_file *);
    int (*xRead)(sk_file *, void *, int iAmt, sk_int64 iOfst);
    int (*xWrite)(sk_file *, const void *, int iAmt, sk_int64 iOfst);
    int (*xTruncate)(sk_file *, sk_int64 size);
    int (*xSync)(sk_file *, int flags);
    int (*xFileSize)(sk_file *, sk_int64 *pSize);
    int (*xLock)(sk_file *, int);
    int (*xUnlock)(sk_file *, int);
    int (*xCheckReservedLock)(sk_file *, int *pResOut);
    int (*xFileControl)(sk_file *, int op, void *pArg);
    int (*xSectorSize)(sk_file *);
    int (*xDeviceCharacteristics)(sk_file *);
    int (*xShmMap)(sk_file *, int iPg, int pgsz, int, void volatile **);
    int (*xShmLock)(sk_file *, int offset, int n, int flags);
    void (*xShmBarrier)(sk_file *);
    int (*xShmUnmap)(sk_file *, int deleteFlag);
    int (*xFetch)(sk_file *, sk_int64 iOfst, int iAmt, void **pp);
    int (*xUnfetch)(sk_file *, sk_int64 iOfst, void *p);
};
struct sk_vfs {
    int iVersion;
    int szOsFile;
    int mxPathname;
    sk_vfs *pNext;
    const char *zName;
    void *pAppData;
    int (*xOpen)(sk_vfs *, const char *zName, sk_file *, int flags, int *pOutFlags);
    int (*xDelete)(sk_vfs *, const char *zName, int syncDir);
    int (*xAccess)(sk_vfs *, const char *zName, int flags, int *pResOut);
    int (*xFullPathname)(sk_vfs *, const char *zName, int nOut, char *zOut);
    void *(*xDlOpen)(sk_vfs *, const char *zFilename);
    void (*xDlError)(sk_vfs *, int nByte, char *zErrMsg);
    void (*(*xDlSym)(sk_vfs *, void *, const char *zSymbol))(void);
    void (*xDlClose)(sk_vfs *, void *);
    int (*xRandomness)(sk_vfs *, int nByte, char *zOut);
    int (*xSleep)(sk_vfs *, int microseconds);
    int (*xCurrentTime)(sk_vfs *, double *);
    int (*xGetLastError)(sk_vfs *, int, char *);
    int (*xCurrentTimeInt64)(sk_vfs *, sk_int64 *);
    int (*xSetSystemCall)(sk_vfs *, const char *zName, void (*)(void));
    void (*(*xGetSystemCall)(sk_vfs *, const char *zName))(void);
    const char *(*xNextSystemCall)(sk_vfs *, const char *zName);
};
#define SK_OK 0
#define SK_NOMEM 7
#define SK_OPEN_WAL 0x00080000
#define SK_WAL_HEADER_BYTES 32
#define SK_FRAME_HEADER_BYTES 24

sk_vfs *sqlite_nio_sqlite3_vfs_find(const char *zVfsName);
int sqlite_nio_sqlite3_vfs_register(sk_vfs *, int makeDflt);

/// An open file of the coalescing VFS: the underlying file follows this struct in the memory
/// SQLite gives (`szOsFile`). For a write-ahead log, the writes of a transaction gather in
/// `buffer` (contiguous bytes starting at file offset `start`) and reach the file in as few
/// calls as SQLite's order of writes allows: two for a transaction's appended frames.
typedef struct {
    sk_file base;
    sk_file *real;
    int isLog;
    /// The next write is the page of a commit frame: the transaction's last bytes.
    int commitPageNext;
    unsigned char *buffer;
    int length;
    sk_int64 start;
    /// Calls to the underlying file's xWrite, and writes SQLite asked for (for tests).
    sk_int64 fileWrites;
    sk_int64 requestedWrites;
} sk_coalescing_file;

static sk_vfs *sk_underlying = 0;

static int sk_flush(sk_coalescing_file *p) {
    if (p->length == 0) return SK_OK;
    int rc = p->real->pMethods->xWrite(p->real, p->buffer, p->length, p->start);
    p->fileWrites += 1;
    p->length = 0;
    return rc;
}

static int sk_close(sk_file *file) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int flushed = sk_flush(p);
    int rc = p->real->pMethods->xClose(p->real);
    free(p->buffer);
    p->buffer = 0;
    return flushed != SK_OK ? flushed : rc;
}

static int sk_read(sk_file *file, void *data, int amount, sk_int64 offset) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int rc = sk_flush(p);
    if (rc != SK_OK) return rc;
    return p->real->pMethods->xRead(p->real, data, amount, offset);
}

/// Writes `amount` bytes in pieces the unix VFS takes whole: it keeps only the low 17 bits of a
/// write's size, so a larger write (a statement journal over STOREKEEPER_SQLITE_STATEMENT_JOURNAL_BYTES
/// spilling its 8 MiB chunks to a temporary file) came back short and SQLite reported a full disk.
static int sk_write_pieces(sk_file *real, const void *data, int amount, sk_int64 offset) {
    const unsigned char *bytes = data;
    while (amount > 0) {
        int piece = amount > STOREKEEPER_SQLITE_LOG_BUFFER_BYTES ? STOREKEEPER_SQLITE_LOG_BUFFER_BYTES : amount;
        int rc = real->pMethods->xWrite(real, bytes, piece, offset);
        if (rc != SK_OK) return rc;
        bytes += piece;
        offset += piece;
        amount -= piece;
    }
    return SK_OK;
}

static int sk_write(sk_file *file, const void *data, int amount, sk_int64 offset) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    if (!p->isLog) return sk_write_pieces(p->real, data, amount, offset);
    p->requestedWrites += 1;
    int rc = SK_OK;
    // Only bytes that continue the gathered ones join them; anything else (a frame rewritten
    // in place, the log's header as it starts again) sends the gathered bytes first, so the
    // file sees every write in SQLite's order.
    if (p->length > 0 && (offset != p->start + p->length || p->length + amount > STOREKEEPER_SQLITE_LOG_BUFFER_BYTES)) {
        rc = sk_flush(p);
        if (rc != SK_OK) return rc;
    }
    if (amount > STOREKEEPER_SQLITE_LOG_BUFFER_BYTES) {
        p->commitPageNext = 0;
        p->fileWrites += 1;
        return sk_write_pieces(p->real, data, amount, offset);
    }
    if (p->buffer == 0) {
        p->buffer = malloc(STOREKEEPER_SQLITE_LOG_BUFFER_BYTES);
        if (p->buffer == 0) return SK_NOMEM;
    }
    if (p->length == 0) p->start = offset;
    memcpy(p->buffer + p->length, data, (size_t)amount);
    p->length += amount;
    // A frame's header names, in its bytes 4 to 7, the database's size after the commit for
    // a transaction's last frame (zero otherwise). That header, and then that frame's page,
    // reach the file as soon as they are written: the transaction is then complete in the
    // file before SQLite publishes it to other connections (which read the file itself),
    // whatever the `synchronous` setting. The header goes at once because SQLite may write it
    // again without its page, after the commit, when it rewrites the checksums of frames the
    // transaction overwrote in place.
    if (p->commitPageNext) {
        p->commitPageNext = 0;
        return sk_flush(p);
    }
    if (amount == SK_FRAME_HEADER_BYTES && offset >= SK_WAL_HEADER_BYTES) {
        const unsigned char *header = data;
        if ((header[4] | header[5] | header[6] | header[7]) != 0) {
            p->commitPageNext = 1;
            return sk_flush(p);
        }
    }
    return SK_OK;
}

static int sk_truncate(sk_file *file, sk_int64 size) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int rc = sk_flush(p);
    if (rc != SK_OK) return rc;
    return p->real->pMethods->xTruncate(p->real, size);
}

static int sk_sync(sk_file *file, int flags) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int rc = sk_flush(p);
    if (rc != SK_OK) return rc;
    return p->real->pMethods->xSync(p->real, flags);
}

static int sk_file_size(sk_file *file, sk_int64 *size) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int rc = sk_flush(p);
    if (rc != SK_OK) return rc;
    return p->real->pMethods->xFileSize(p->real, size);
}

static int sk_lock(sk_file *file, int level) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xLock(p->real, level);
}

static int sk_unlock(sk_file *file, int level) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xUnlock(p->real, level);
}

static int sk_check_reserved_lock(sk_file *file, int *result) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xCheckReservedLock(p->real, result);
}

static int sk_file_control(sk_file *file, int op, void *argument) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int rc = sk_flush(p);
    if (rc != SK_OK) return rc;
    return p->real->pMethods->xFileControl(p->real, op, argument);
}

static int sk_sector_size(sk_file *file) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xSectorSize(p->real);
}

static int sk_device_characteristics(sk_file *file) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xDeviceCharacteristics(p->real);
}

static int sk_shm_map(sk_file *file, int page, int size, int extend, void volatile **memory) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xShmMap(p->real, page, size, extend, memory);
}

static int sk_shm_lock(sk_file *file, int offset, int n, int flags) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xShmLock(p->real, offset, n, flags);
}

static void sk_shm_barrier(sk_file *file) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    p->real->pMethods->xShmBarrier(p->real);
}

static int sk_shm_unmap(sk_file *file, int deleteFlag) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xShmUnmap(p->real, deleteFlag);
}

static int sk_fetch(sk_file *file, sk_int64 offset, int amount, void **pointer) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    int rc = sk_flush(p);
    if (rc != SK_OK) return rc;
    return p->real->pMethods->xFetch(p->real, offset, amount, pointer);
}

static int sk_unfetch(sk_file *file, sk_int64 offset, void *pointer) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    return p->real->pMethods->xUnfetch(p->real, offset, pointer);
}

static const sk_io_methods sk_methods = {
    3, sk_close, sk_read, sk_write, sk_truncate, sk_sync, sk_file_size, sk_lock, sk_unlock, sk_check_reserved_lock,
    sk_file_control, sk_sector_size, sk_device_characteristics, sk_shm_map, sk_shm_lock, sk_shm_barrier, sk_shm_unmap,
    sk_fetch, sk_unfetch,
};

/// The underlying file sits after the coalescing struct, aligned for any type.
static size_t sk_header_size(void) {
    return (sizeof(sk_coalescing_file) + 15) & ~(size_t)15;
}

static int sk_open(sk_vfs *vfs, const char *name, sk_file *file, int flags, int *outFlags) {
    sk_coalescing_file *p = (sk_coalescing_file *)file;
    memset(p, 0, sizeof(*p));
    p->real = (sk_file *)((unsigned char *)file + sk_header_size());
    // Only the gathering VFS (its application data set) gathers a log; the other writes every
    // file in pieces and no more.
    p->isLog = (flags & SK_OPEN_WAL) != 0 && vfs->pAppData != 0;
    int rc = sk_underlying->xOpen(sk_underlying, name, p->real, flags, outFlags);
    // An underlying file that was not opened has no methods; nor then does this one, so
    // SQLite does not close it.
    p->base.pMethods = p->real->pMethods != 0 ? &sk_methods : 0;
    return rc;
}

static int sk_delete(sk_vfs *vfs, const char *name, int syncDir) { return sk_underlying->xDelete(sk_underlying, name, syncDir); }
static int sk_access(sk_vfs *vfs, const char *name, int flags, int *result) {
    return sk_underlying->xAccess(sk_underlying, name, flags, result);
}
static int sk_full_pathname(sk_vfs *vfs, const char *name, int size, char *out) {
    return sk_underlying->xFullPathname(sk_underlying, name, size, out);
}
static void *sk_dl_open(sk_vfs *vfs, const char *name) { return sk_underlying->xDlOpen(sk_underlying, name); }
static void sk_dl_error(sk_vfs *vfs, int size, char *message) { sk_underlying->xDlError(sk_underlying, size, message); }
static void (*sk_dl_sym(sk_vfs *vfs, void *handle, const char *symbol))(void) {
    return sk_underlying->xDlSym(sk_underlying, handle, symbol);
}
static void sk_dl_close(sk_vfs *vfs, void *handle) { sk_underlying->xDlClose(sk_underlying, handle); }
static int sk_randomness(sk_vfs *vfs, int size, char *out) { return sk_underlying->xRandomness(sk_underlying, size, out); }
static int sk_sleep(sk_vfs *vfs, int microseconds) { return sk_underlying->xSleep(sk_underlying, microseconds); }
static int sk_current_time(sk_vfs *vfs, double *now) { return sk_underlying->xCurrentTime(sk_underlying, now); }
static int sk_get_last_error(sk_vfs *vfs, int size, char *out) { return sk_underlying->xGetLastError(sk_underlying, size, out); }
static int sk_current_time_int64(sk_vfs *vfs, sk_int64 *now) { return sk_underlying->xCurrentTimeInt64(sk_underlying, now); }

static sk_vfs sk_coalescing_vfs;
static sk_vfs sk_pieces_vfs;
static int sk_registration_status = -1;
static char sk_gathers = 1;

static void storekeeper_sqlite_register_log_vfs(void) {
    sk_underlying = sqlite_nio_sqlite3_vfs_find(0);
    if (sk_underlying == 0 || sk_underlying->iVersion < 2) {
        sk_registration_status = 1;
        return;
    }
    sk_coalescing_vfs = (sk_vfs){
        .iVersion = 2,
        .szOsFile = (int)sk_header_size() + sk_underlying->szOsFile,
        .mxPathname = sk_underlying->mxPathname,
        .zName = STOREKEEPER_SQLITE_LOG_VFS,
        .xOpen = sk_open,
        .xDelete = sk_delete,
        .xAccess = sk_access,
        .xFullPathname = sk_full_pathname,
        .xDlOpen = sk_dl_open,
        .xDlError = sk_dl_error,
        .xDlSym = sk_dl_sym,
        .xDlClose = sk_dl_close,
        .xRandomness = sk_randomness,
        .xSleep = sk_sleep,
        .xCurrentTime = sk_current_time,
        .xGetLastError = sk_get_last_error,
        .xCurrentTimeInt64 = sk_current_time_int64,
    };
    sk_coalescing_vfs.pAppData = &sk_gathers;
    sk_pieces_vfs = sk_coalescing_vfs;
    sk_pieces_vfs.zName = STOREKEEPER_SQLITE_PIECES_VFS;
    sk_pieces_vfs.pAppData = 0;
    sk_registration_status = sqlite_nio_sqlite3_vfs_register(&sk_coalescing_vfs, 0);
    if (sk_registration_status == SK_OK) sk_registration_status = sqlite_nio_sqlite3_vfs_register(&sk_pieces_vfs, 0);
}

int storekeeper_sqlite_log_vfs_status(void) {
    return sk_registration_status;
}

int sqlite_nio_sqlite3_file_control(void *db, const char *zDbName, int op, void *pArg);
#define SK_FCNTL_JOURNAL_POINTER 28

int storekeeper_sqlite_log_writes(void *db, long long *requested, long long *made) {
    sk_file *journal = 0;
    int rc = sqlite_nio_sqlite3_file_control(db, "main", SK_FCNTL_JOURNAL_POINTER, &journal);
    if (rc != SK_OK) return rc;
    if (journal == 0 || journal->pMethods != &sk_methods) return 1;
    sk_coalescing_file *p = (sk_coalescing_file *)journal;
    *requested = p->requestedWrites;
    *made = p->fileWrites;
    return SK_OK;
}

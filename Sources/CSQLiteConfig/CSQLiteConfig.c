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
__attribute__((constructor)) static void storekeeper_sqlite_configure(void) {
    statement_journal_status =
        sqlite_nio_sqlite3_config(STOREKEEPER_SQLITE_CONFIG_STMTJRNL_SPILL, STOREKEEPER_SQLITE_STATEMENT_JOURNAL_BYTES);
}

int storekeeper_sqlite_statement_journal_status(void) {
    return statement_journal_status;
}

#include "CSQLiteConfig.h"

// The vendored SQLite's own declaration (VaporCSQLite's header is not exported to dependents):
// the symbol is linked in with SQLiteNIO.
int sqlite_nio_sqlite3_db_config(void *db, int op, ...);

// From sqlite3.h: a stable constant of SQLite's interface.
#define STOREKEEPER_SQLITE_DBCONFIG_ENABLE_QPSG 1007

int storekeeper_sqlite_enable_qpsg(void *db) {
    int enabled = 0;
    int status = sqlite_nio_sqlite3_db_config(db, STOREKEEPER_SQLITE_DBCONFIG_ENABLE_QPSG, 1, &enabled);
    if (status != 0) return status;
    return enabled == 1 ? 0 : 1;
}

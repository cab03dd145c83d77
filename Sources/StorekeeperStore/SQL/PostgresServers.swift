import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The PostgreSQL servers a URL names (one pool each) and the one the store uses now.
///
/// With one host and `target_session_attrs=any` that is all there is. With several hosts, or
/// `read-write`, a watch asks the current server twice a second whether it still accepts writes
/// (`pg_is_in_recovery()`), and when it does not answer or has become a standby, asks every host
/// in the URL's order and moves to the first that does: after the primary is killed and a standby
/// promoted, the store finds the new primary by itself. In between, operations fail at once with
/// ``StoreError/Code/unavailable`` (the server answers 503 with `Retry-After`) rather than
/// waiting on a host that is gone.
final class PostgresServers: Sendable {
    let hosts: [PostgresSettings.Host]
    let clients: [PostgresClient]
    let targetSession: PostgresSettings.TargetSession
    let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var index = 0
        /// Whether the current server is fit for use, as far as the watch knows.
        var usable = true
        /// Set when an operation saw a sign the server changed; the watch looks at once.
        var suspect = false
        /// Counts the moves to another host and the losses of every host.
        var epoch = 0
    }

    init(settings: PostgresSettings, logger: Logger, configure: (inout PostgresClient.Configuration) -> Void) {
        hosts = settings.hosts
        targetSession = settings.targetSession
        self.logger = logger
        clients = settings.hosts.map { host in
            var configuration =
                if let socketPath = host.socketPath {
                    PostgresClient.Configuration(
                        unixSocketPath: socketPath, username: settings.username, password: settings.password, database: settings.database)
                } else {
                    PostgresClient.Configuration(
                        host: host.host, port: host.port, username: settings.username, password: settings.password,
                        database: settings.database, tls: settings.tls)
                }
            configure(&configuration)
            return PostgresClient(configuration: configuration, backgroundLogger: logger)
        }
    }

    /// Changes whenever the store moves to another host or finds none fit: an operation still
    /// waiting for a connection from before gives up then (``PostgresBackend``).
    var epoch: Int { state.withLock { $0.epoch } }

    /// Whether the servers are watched (several hosts, or writes required).
    var watched: Bool { hosts.count > 1 || targetSession == .readWrite }

    /// The pool of the server in use.
    var current: PostgresClient { clients[state.withLock { $0.index }] }

    /// Why no server can be used now, when none can.
    var unusable: String? {
        state.withLock { $0.usable } ? nil : "no PostgreSQL host of the URL accepts writes now"
    }

    /// Tells the watch an operation saw the server fail or refuse a write.
    func suspect() {
        guard watched else { return }
        state.withLock { $0.suspect = true }
    }

    /// Runs every pool, and the watch when there is one, until cancelled.
    func run() async {
        await withDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.run() } }
            if watched { group.addTask { await self.watch() } }
        }
    }

    /// How often the current server is asked.
    static let watchInterval: Duration = .milliseconds(500)
    /// How long a server may take to answer whether it accepts writes.
    static let probeTimeout: Duration = .seconds(2)

    private func watch() async {
        var asked = ContinuousClock.now - Self.watchInterval
        while !Task.isCancelled {
            let due = state.withLock { $0.suspect } || ContinuousClock.now - asked >= Self.watchInterval
            guard due else {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            asked = ContinuousClock.now
            state.withLock { $0.suspect = false }
            await settle()
        }
    }

    /// Checks the current server and, when it is unfit, moves to the first fit one.
    func settle() async {
        let index = state.withLock { $0.index }
        if await fits(index) {
            state.withLock { $0.usable = true }
            return
        }
        for candidate in hosts.indices where candidate != index {
            if await fits(candidate) {
                state.withLock { state in
                    state.index = candidate
                    state.usable = true
                    state.epoch += 1
                }
                logger.warning(
                    "PostgreSQL: moved to another host", metadata: ["host": "\(hosts[candidate].host):\(hosts[candidate].port)"])
                return
            }
        }
        let wasUsable = state.withLock { state in
            defer { state.usable = false }
            if state.usable { state.epoch += 1 }
            return state.usable
        }
        if wasUsable { logger.warning("PostgreSQL: no host of the URL accepts writes now; answering 503 until one does") }
    }

    /// Whether the server at `index` answers within ``probeTimeout`` and, for `read-write`,
    /// is not a standby.
    private func fits(_ index: Int) async -> Bool {
        let client = clients[index]
        let wantsWrites = targetSession == .readWrite
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                do {
                    return try await client.withConnection { connection in
                        let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: self.logger)
                        for try await recovery in rows.decode(Bool.self) { return !wantsWrites || !recovery }
                        return false
                    }
                } catch {
                    return false
                }
            }
            group.addTask {
                try? await Task.sleep(for: Self.probeTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? false
        }
    }
}

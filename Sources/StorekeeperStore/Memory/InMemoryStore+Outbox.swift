import Foundation

extension InMemoryStore {
    // MARK: - Outbox

    /// Records an event unless its key is known, with a delivery per destination.
    func insertEvent(_ event: EventRecord, appId: String, at: Date) -> Bool {
        guard eventKeys.insert(AppKey(appId: appId, key: event.idempotencyKey)).inserted else { return false }
        var row = event
        row.id = nextId()
        row.appId = appId
        row.occurredAt = event.occurredAt.toMilliseconds
        row.destinations = []
        eventRows.append(row)
        for destination in Set(event.destinations).sorted() {
            let id = nextId()
            deliveryRows[id] = DeliveryRow(
                delivery: OutboxDelivery(
                    id: id, appId: appId, destination: destination, state: .pending, attempts: 0, nextAttemptAt: at.toMilliseconds,
                    lastStatus: nil, lastError: nil, deliveredAt: nil, createdAt: at.toMilliseconds, event: row))
        }
        return true
    }

    @discardableResult
    public func saveWebhook(_ webhook: StoredWebhook) async throws -> Bool {
        let key = AppKey(appId: webhook.appId, key: webhook.id)
        var row = webhook
        row.createdAt = (webhookRows[key]?.createdAt ?? webhook.createdAt).toMilliseconds
        row.updatedAt = webhook.updatedAt.toMilliseconds
        let created = webhookRows[key] == nil
        webhookRows[key] = row
        return created
    }

    @discardableResult
    public func deleteWebhook(appId: String, id: String) async throws -> Bool {
        webhookRows.removeValue(forKey: AppKey(appId: appId, key: id)) != nil
    }

    public func storedWebhooks(appId: String?) async throws -> [StoredWebhook] {
        webhookRows.values.filter { appId == nil || $0.appId == appId }.sorted { ($0.appId, $0.id) < ($1.appId, $1.id) }
    }

    // MARK: - Problems

    @discardableResult
    public func openProblem(_ problem: Problem, event: EventRecord?) async throws -> Bool {
        if let index = problemRows.firstIndex(where: { $0.appId == problem.appId && $0.causeKey == problem.causeKey && $0.status == .open }) {
            problemRows[index].occurrences += 1
            return false
        }
        var row = problem
        row.id = nextId()
        row.occurrences = 1
        row.openedAt = problem.openedAt.toMilliseconds
        problemRows.append(row)
        if let event { _ = insertEvent(event, appId: problem.appId, at: problem.openedAt) }
        return true
    }

    @discardableResult
    public func resolveProblem(
        appId: String, causeKey: String, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?
    ) async throws -> Problem? {
        resolve(at: at, by: by, event: event) { $0.appId == appId && $0.causeKey == causeKey }
    }

    public func resolveProblem(
        appId: String, id: Int64, at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?
    ) async throws -> Problem? {
        resolve(at: at, by: by, event: event) { $0.appId == appId && $0.id == id }
    }

    func resolve(at: Date, by: String, event: @escaping @Sendable (Problem) -> EventRecord?, where matches: (Problem) -> Bool) -> Problem? {
        guard let index = problemRows.firstIndex(where: { $0.status == .open && matches($0) }) else { return nil }
        problemRows[index].status = .resolved
        problemRows[index].resolvedAt = at.toMilliseconds
        problemRows[index].resolvedBy = by
        let problem = problemRows[index]
        if let record = event(problem) { _ = insertEvent(record, appId: problem.appId, at: at) }
        return problem
    }

    public func problems(appId: String, status: ProblemStatus?, limit: Int) async throws -> [Problem] {
        Array(problemRows.filter { $0.appId == appId && (status == nil || $0.status == status) }.reversed().prefix(max(0, min(limit, 1000))))
    }

    public func problems(appId: String, customerId: String, status: ProblemStatus, limit: Int) async throws -> [Problem] {
        Array(
            problemRows.filter { $0.appId == appId && $0.status == status && CustomerId.same($0.customerId, customerId) }.reversed()
                .prefix(max(0, min(limit, 1000))))
    }

    public func leaseDeliveries(limit: Int, owner: String, now: Date, leaseUntil: Date) async throws -> [OutboxDelivery] {
        let due = deliveryRows.values.filter { row in
            row.delivery.state == .pending && row.delivery.nextAttemptAt <= now && (row.leaseUntil.map { $0 < now } ?? true)
                && disabled[AppKey(appId: row.delivery.appId, key: row.delivery.destination)] == nil
        }.sorted { ($0.delivery.nextAttemptAt, $0.delivery.id) < ($1.delivery.nextAttemptAt, $1.delivery.id) }.prefix(max(1, limit))
        return due.map { row in
            var leased = row
            leased.leaseOwner = owner
            leased.leaseUntil = leaseUntil.toMilliseconds
            leased.delivery.attempts += 1
            deliveryRows[row.delivery.id] = leased
            return leased.delivery
        }
    }

    public func releaseDeliveryLeases() async throws {
        for (id, row) in deliveryRows where row.leaseOwner != nil {
            deliveryRows[id]?.leaseOwner = nil
            deliveryRows[id]?.leaseUntil = nil
        }
    }

    public func postponeDeliveries(ids: [Int64], owner: String, until: Date) async throws {
        for id in ids {
            guard var row = deliveryRows[id], row.leaseOwner == owner, row.delivery.state == .pending else { continue }
            row.delivery.nextAttemptAt = until.toMilliseconds
            row.delivery.attempts = max(0, row.delivery.attempts - 1)
            row.leaseOwner = nil
            row.leaseUntil = nil
            deliveryRows[id] = row
        }
    }

    public func finishDelivery(id: Int64, owner: String, attempt: DeliveryAttempt, outcome: DeliveryOutcome) async throws {
        guard var row = deliveryRows[id], row.leaseOwner == owner else { return }
        switch outcome {
        case .delivered:
            row.delivery.state = .delivered
            row.delivery.deliveredAt = attempt.at.toMilliseconds
        case .retry(let date):
            row.delivery.state = .pending
            row.delivery.nextAttemptAt = date.toMilliseconds
        case .dead:
            row.delivery.state = .dead
        }
        row.delivery.lastStatus = attempt.status
        row.delivery.lastError = attempt.error
        row.leaseOwner = nil
        row.leaseUntil = nil
        deliveryRows[id] = row
        var stored = attempt
        stored.at = attempt.at.toMilliseconds
        deliveryAttempts[id, default: []].append(stored)
    }

    public func deliveries(appId: String, destination: String, state: DeliveryState?, limit: Int) async throws -> [OutboxDelivery] {
        let matching = deliveryRows.values.map(\.delivery).filter { delivery in
            delivery.appId == appId && delivery.destination == destination && (state == nil || delivery.state == state)
        }
        return Array(matching.sorted { $0.id > $1.id }.prefix(max(0, min(limit, 1000))))
    }

    public func delivery(appId: String, id: Int64) async throws -> OutboxDelivery? {
        deliveryRows[id].flatMap { $0.delivery.appId == appId ? $0.delivery : nil }
    }

    public func attempts(deliveryId: Int64) async throws -> [DeliveryAttempt] {
        deliveryAttempts[deliveryId] ?? []
    }

    public func replayDeliveries(appId: String, destination: String, id: Int64?, now: Date) async throws -> Int {
        var count = 0
        for (key, row) in deliveryRows
        where row.delivery.appId == appId && row.delivery.destination == destination && row.delivery.state == .dead && (id.map { $0 == key } ?? true)
        {
            var replayed = row
            replayed.delivery.state = .pending
            replayed.delivery.attempts = 0
            replayed.delivery.nextAttemptAt = now.toMilliseconds
            replayed.leaseOwner = nil
            replayed.leaseUntil = nil
            deliveryRows[key] = replayed
            count += 1
        }
        return count
    }

    public func disableDestination(appId: String, destination: String, reason: String, at: Date) async throws {
        let key = AppKey(appId: appId, key: destination)
        if disabled[key] == nil { disabled[key] = reason }
    }

    public func enableDestination(appId: String, destination: String) async throws {
        disabled[AppKey(appId: appId, key: destination)] = nil
    }

    public func disabledDestinations(appId: String) async throws -> [String: String] {
        Dictionary(uniqueKeysWithValues: disabled.filter { $0.key.appId == appId }.map { ($0.key.key, $0.value) })
    }

    public func deliveryCounts(appId: String) async throws -> [String: [DeliveryState: Int]] {
        var result: [String: [DeliveryState: Int]] = [:]
        for row in deliveryRows.values where row.delivery.appId == appId {
            result[row.delivery.destination, default: [:]][row.delivery.state, default: 0] += 1
        }
        return result
    }

    public func auditEntries(appId: String, limit: Int) async throws -> [AuditEntry] {
        Array(auditRows.filter { $0.appId == appId }.reversed().prefix(max(0, min(limit, 10_000))))
    }

    public func auditEntries(appId: String, customerId: String, limit: Int) async throws -> [AuditEntry] {
        Array(auditRows.filter { $0.appId == appId && CustomerId.same($0.customerId, customerId) }.reversed().prefix(max(0, min(limit, 10_000))))
    }
}

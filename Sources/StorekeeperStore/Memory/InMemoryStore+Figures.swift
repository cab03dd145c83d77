import Foundation
import SubscriptionAnalytics

extension InMemoryStore {
    /// Writes chain figures as ``SQLStore`` does: only when the chain's ledger has as many rows
    /// as the figures were computed from, else their retry job is added.
    func writeFigures(_ updates: [FigureUpdate], appId: String) {
        for update in updates {
            guard chainLedgerCount(appId: appId, chain: update.chain) == update.facts else {
                if jobKeys[AppKey(appId: appId, key: update.retry.idempotencyKey)] == nil {
                    var row = update.retry
                    row.appId = appId
                    _ = insertJob(row)
                }
                continue
            }
            let key = AppKey(appId: appId, key: update.environment)
            var rows = figureRowSets[key] ?? FigureRowsInMemory(calendar: update.calendar)
            rows.replace(chain: update.chain, with: update.figures)
            var owners = figureOwners[key] ?? [:]
            let affected = Set([owners[update.chain], update.customer].compactMap { $0 })
            owners[update.chain] = update.customer
            for owner in affected {
                let chains = owners.filter { $0.value == owner }.keys.sorted().compactMap { rows.chains[$0] }
                rows.replace(chain: FigureUpdate.cohortKey(owner), with: ChainFigures.cohortRows(of: chains, calendar: update.calendar))
            }
            figureOwners[key] = owners
            figureRowSets[key] = rows
        }
    }

    /// The rows of `chain`'s ledger (its facts, and the revocations of its transactions).
    func chainLedgerCount(appId: String, chain: String) -> Int {
        let transactions = Set(ledgerRows.compactMap { $0.appId == appId && $0.fact.originalTransactionId == chain ? $0.fact.transactionId : nil })
        return ledgerRows.count { row in
            guard row.appId == appId else { return false }
            if row.fact.originalTransactionId == chain { return true }
            if case .revocation(let revocation) = row.fact { return transactions.contains(revocation.transactionId) }
            return false
        }
    }

    public func figureState(appId: String, environment: String) async throws -> FigureState? {
        figureStates[AppKey(appId: appId, key: environment)]
    }

    public func resetFigures(appId: String, environment: String, settings: String) async throws {
        figureRowSets[AppKey(appId: appId, key: environment)] = nil
        figureOwners[AppKey(appId: appId, key: environment)] = nil
        figureStates[AppKey(appId: appId, key: environment)] = FigureState(settings: settings, resumeAfter: nil, complete: false)
    }

    public func recordFigureProgress(appId: String, environment: String, settings: String, resumeAfter: String?, complete: Bool) async throws {
        let key = AppKey(appId: appId, key: environment)
        guard figureStates[key]?.settings == settings else { return }
        figureStates[key] = FigureState(settings: settings, resumeAfter: resumeAfter, complete: complete)
    }

    public func chainFigures(appId: String, environment: String, customers: [String]) async throws -> [String: [ChainFigures]] {
        let key = AppKey(appId: appId, key: environment)
        let wanted = Set(customers.map(FigureUpdate.owner(customer:)))
        var result: [String: [ChainFigures]] = [:]
        for (chain, owner) in figureOwners[key] ?? [:] where wanted.contains(owner) {
            if let figures = figureRowSets[key]?.chains[chain], let customer = FigureUpdate.customer(ofOwner: owner) {
                result[customer, default: []].append(figures.keeping { $0.isEmpty })
            }
        }
        return result
    }

    /// Computed from the exposed customers' figures on each call: what ``SQLStore`` keeps
    /// maintained.
    public func experimentOutcomeSums(appId: String, environment: String, experimentId: String, now: Date) async throws -> ExperimentOutcomeSums {
        let enrolments = try await enrolments(appId: appId, experimentId: experimentId)
        let chains = try await chainFigures(appId: appId, environment: environment, customers: enrolments.map(\.customerId))
        var sums = ExperimentOutcomeSums()
        for enrolment in enrolments {
            let record = ExperimentRecord(of: chains[enrolment.customerId] ?? [], exposure: enrolment.enrolledAt, days: ExperimentOutcome.windows)
            sums.add(record, of: enrolment, now: now)
        }
        return sums
    }

    public func figureSums(appId: String, environment: String, calendar: FigureCalendar) async throws -> any FigureSums {
        // Rows are kept by the days of the time zone they were written with (the settings of the
        // build that wrote them, which the reader checks first).
        RollupSums(rows: figureRowSets[AppKey(appId: appId, key: environment)] ?? FigureRowsInMemory(calendar: calendar))
    }
}

extension SQLStore {
    public func figureSums(appId: String, environment: String, calendar: FigureCalendar) async throws -> any FigureSums {
        RollupSums(rows: figureRows(appId: appId, environment: environment, calendar: calendar))
    }
}

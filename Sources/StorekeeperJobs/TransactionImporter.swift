import AppStoreModels
import AppStoreServerAPI
import Foundation
import Logging
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore

/// Pulls existing customers' full transaction histories from Apple into the ledger (a
/// migration from another system): Get Transaction History v2, every page, plus the current
/// renewal info from Get All Subscription Statuses; then plans each chain's next look.
///
/// Resumable: each finished id is appended to a progress file and skipped on the next run;
/// everything recorded is idempotent, so an id interrupted halfway is simply done again.
public struct TransactionImporter: Sendable {
    /// One customer to import: Apple's original transaction id, and optionally the app's
    /// customer id to link it to.
    public struct Item: Sendable, Hashable {
        public var originalTransactionId: String
        public var customerId: String?
        public init(originalTransactionId: String, customerId: String? = nil) {
            self.originalTransactionId = originalTransactionId
            self.customerId = customerId
        }
    }

    /// What a run did.
    public struct Summary: Sendable, Codable, Hashable {
        public var requested = 0
        public var imported = 0
        /// Finished by an earlier run (in the progress file).
        public var skipped = 0
        public var failed = 0
        public var transactions = 0
        public var newLedgerEntries = 0
        /// Failure reasons by original transaction id.
        public var failures: [String: String] = [:]
        /// The same failures, each with its ``Failure/Code``.
        public var failureDetails: [String: Failure] = [:]
        public init() {}
    }

    /// Why an id was not imported (then it is not marked finished, so the next run tries again).
    public struct Failure: Error, Sendable, Codable, Hashable, CustomStringConvertible {
        /// What kind of failure: an open set, so readers keep codes added later.
        public struct Code: RawRepresentable, Sendable, Codable, Hashable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
            public func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(rawValue)
            }

            /// Apple's App Store Server API refused or failed (``Failure/appleErrorCode``, e.g. 4040010).
            public static let appleError = Code(rawValue: "apple_error")
            /// The chain is already another customer's.
            public static let chainOwnedByAnotherCustomer = Code(rawValue: "chain_owned_by_another_customer")
            /// Apple's data names products the app's catalog does not list (``Failure/productIds``);
            /// the rest of the chain was recorded.
            public static let unknownProduct = Code(rawValue: "unknown_product")
            /// Apple's data was refused for another reason (bundle, environment).
            public static let refused = Code(rawValue: "refused")
            /// Anything else (the database, a bug).
            public static let failed = Code(rawValue: "failed")
        }

        public var code: Code
        public var message: String
        /// Apple's `errorCode`, when Apple sent one.
        public var appleErrorCode: Int64?
        /// The products Apple's data names that the catalog does not list.
        public var productIds: [String]?

        public init(code: Code, message: String, appleErrorCode: Int64? = nil, productIds: [String]? = nil) {
            self.code = code
            self.message = message
            self.appleErrorCode = appleErrorCode
            self.productIds = productIds
        }

        public var description: String { message }

        /// The failure an error thrown while importing stands for.
        static func of(_ error: any Error) -> Failure {
            let message = String(String(describing: error).prefix(300))
            switch error {
            case let failure as Failure: return failure
            case let apple as AppStoreServerAPIError:
                return Failure(code: .appleError, message: message, appleErrorCode: apple.apiErrorCode?.rawValue)
            case is FactIntake.AliasTaken: return Failure(code: .chainOwnedByAnotherCustomer, message: message)
            case let store as StoreError where store.code == .aliasConflict:
                return Failure(code: .chainOwnedByAnotherCustomer, message: message)
            default: return Failure(code: .failed, message: message)
            }
        }
    }

    package let runner: JobRunner

    public init(apps: AppDirectory, store: any StorekeeperStorage, clients: AppleClients, clock: @escaping @Sendable () -> Date, logger: Logger) {
        runner = JobRunner(apps: apps, store: store, clients: clients, clock: clock, logger: logger)
    }

    /// Imports `items` for `appId`; `progressFile` keeps finished ids between runs;
    /// `progress(done, total, id)` is called after each item.
    public func run(
        appId: String, items: [Item], progressFile: String?, progress: @Sendable (Int, Int, String) -> Void = { _, _, _ in }
    ) async throws -> Summary {
        guard let app = runner.apps.apps[appId] else { throw ConfigurationError("no app \(appId) is configured") }
        guard let client = runner.clients.client(for: appId) else {
            throw ConfigurationError("app \(appId) has no appStoreServerAPI credentials")
        }
        var finished = Set<String>()
        if let progressFile, let text = try? String(contentsOfFile: progressFile, encoding: .utf8) {
            finished = Set(text.split(whereSeparator: \.isNewline).map(String.init))
        }
        var summary = Summary()
        summary.requested = items.count
        for (index, item) in items.enumerated() {
            defer { progress(index + 1, items.count, item.originalTransactionId) }
            if finished.contains(item.originalTransactionId) {
                summary.skipped += 1
                continue
            }
            do {
                let (transactions, entries) = try await importOne(item, app: app, client: client)
                summary.imported += 1
                summary.transactions += transactions
                summary.newLedgerEntries += entries
                if let progressFile { try Self.append(item.originalTransactionId, to: progressFile) }
            } catch let error as CancellationError {
                throw error
            } catch {
                let failure = Failure.of(error)
                summary.failed += 1
                summary.failures[item.originalTransactionId] = failure.message
                summary.failureDetails[item.originalTransactionId] = failure
            }
        }
        return summary
    }

    private func importOne(_ item: Item, app: AppRuntime, client: any AppStoreServerAPIClientProtocol) async throws -> (Int, Int) {
        let id = item.originalTransactionId
        let now = runner.clock()
        var signed: [String] = []
        var revision: String?
        repeat {
            let page = try await client.getTransactionHistory(transactionId: id, revision: revision)
            signed += page.signedTransactions ?? []
            revision = page.hasMore == true ? page.revision : nil
        } while revision != nil
        let statuses = try await client.getAllSubscriptionStatuses(transactionId: id)
        let renewals = (statuses.data ?? []).flatMap { $0.lastTransactions ?? [] }.compactMap(\.signedRenewalInfo)
        let refusal = await refusal(of: signed, chain: id, app: app, now: now)
        let before = try await runner.store.ledger(appId: app.id, originalTransactionId: id).count
        let chains = try await runner.record(
            app: app, signedTransactions: signed, signedRenewals: renewals, source: .import,
            binding: .imported(customerId: item.customerId, chain: id),
            now: now)
        let after = try await runner.store.ledger(appId: app.id, originalTransactionId: id).count
        for chain in chains.union([id]).sorted() {
            try await runner.scheduleNextLook(chain: chain, app: app, now: now)
        }
        if let refusal { throw refusal }
        return (signed.count, after - before)
    }

    /// What ``JobRunner/record(app:signedTransactions:signedRenewals:source:binding:now:)`` will
    /// skip of the chain's verified transactions (Apple's history holds the whole account's), so
    /// the import can say so instead of only logging it.
    private func refusal(of signed: [String], chain: String, app: AppRuntime, now: Date) async -> Failure? {
        let filter = FraudFilter(app: app.configuration, catalog: app.catalog)
        var unknown = Set<String>()
        var other: [String] = []
        for jws in signed {
            guard case .valid(let transaction) = await app.verify(signedOnly: true, { await $0.verifyAndDecodeTransaction(jws, now: now) }),
                transaction.originalTransactionId == chain || transaction.transactionId == chain, let productId = transaction.productId
            else { continue }
            switch filter.check(bundleId: transaction.bundleId, environment: transaction.environment, productIds: [productId]) {
            case nil: continue
            case .unknownProduct(let product)?: unknown.insert(product)
            case let refusal?: other.append(refusal.description)
            }
        }
        if !unknown.isEmpty {
            let products = unknown.sorted()
            return Failure(
                code: .unknownProduct, message: "Apple's data names products the app's catalog does not list: \(products.joined(separator: ", "))",
                productIds: products)
        }
        return other.first.map { Failure(code: .refused, message: $0) }
    }

    package static func append(_ id: String, to path: String) throws {
        let line = Data((id + "\n").utf8)
        if let handle = FileHandle(forWritingAtPath: path) {
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: line)
        } else {
            try line.write(to: URL(fileURLWithPath: path))
        }
    }

    /// Reads ids (digits, one per line) or `customerId,originalTransactionId` lines; blank lines and
    /// `#` comments are skipped.
    public static func items(fromText text: String, withCustomers: Bool) throws -> [Item] {
        var items: [Item] = []
        for (number, raw) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if withCustomers {
                let parts = line.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty, Self.isId(parts[1]) else {
                    if number == 0 { continue }  // a header line
                    throw ConfigurationError("line \(number + 1): expected customerId,originalTransactionId")
                }
                items.append(Item(originalTransactionId: parts[1], customerId: parts[0]))
            } else {
                guard Self.isId(line) else { throw ConfigurationError("line \(number + 1): \(line.prefix(40)) is not a transaction id") }
                items.append(Item(originalTransactionId: line))
            }
        }
        return items
    }

    package static func isId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }
}

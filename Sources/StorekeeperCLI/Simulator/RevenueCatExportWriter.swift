import AppStoreModels
import AppStoreSimulator
import Foundation

/// Writes what RevenueCat would export of a simulated population (`simulator serve
/// --revenuecat-export`): RevenueCat's scheduled data export (semicolon-delimited, one row per
/// transaction, with a header), and beside it the simulator's truth per app user id.
///
/// The export mixes in what a real one holds: customers first seen anonymously
/// (`$RCAnonymousID:…`, with their app user id as `rc_last_seen_app_user_id_alias`), rows of
/// other stores, rows without `entitlement_identifiers`, quoted fields holding the delimiter,
/// and a few transaction ids Apple does not know.
struct RevenueCatExportWriter {
    let store: SimulatedAppStore
    let products: [SimulatedProduct]

    /// The simulator's truth about one customer, under its RevenueCat app user id.
    struct CustomerTruth: Codable, Sendable {
        var appUserId: String
        /// Other app user ids the export gives the customer.
        var aliases: [String]
        /// The simulator's account of the customer.
        var simulatorCustomerId: String
        var entitlements: [EntitlementTruth]
        /// App Store chains of the export that Apple does not know.
        var unknownTransactionIds: [String]
    }

    struct EntitlementTruth: Codable, Sendable, Hashable {
        var identifier: String
        var productId: String
        var originalTransactionId: String
        /// When access ends (nil: owned for good).
        var expiresDate: Date?
    }

    struct Truth: Codable, Sendable {
        var at: Date
        var rows: Int
        var otherStoreRows: Int
        var customers: [CustomerTruth]
    }

    static let columns = [
        "rc_original_app_user_id", "rc_last_seen_app_user_id_alias", "country", "product_identifier", "product_display_name", "start_time",
        "end_time", "effective_end_time", "store", "is_auto_renewable", "is_trial_period", "is_sandbox", "refunded_at",
        "original_store_transaction_id", "store_transaction_id", "entitlement_identifiers", "ownership_type",
    ]

    /// The export's text and the truth for `customerIds` (the simulator's accounts) at `instant`.
    func write(customerIds: [String], at instant: Date) -> (csv: String, truth: Truth) {
        var lines = [Self.columns.joined(separator: ";")]
        var truths: [CustomerTruth] = []
        var otherStoreRows = 0
        let catalog = Dictionary(products.map { ($0.productId, $0) }, uniquingKeysWith: { first, _ in first })
        for (number, customerId) in customerIds.enumerated() {
            let transactions = store.transactions(ofCustomer: customerId)
            guard !transactions.isEmpty else { continue }
            // One customer in seven was first seen anonymously and logged in later.
            let anonymous = number % 7 == 3
            let appUserId = anonymous ? "$RCAnonymousID:\(Self.hex(number))" : customerId
            let alias = anonymous ? customerId : appUserId
            var unknown: [String] = []
            for (index, transaction) in transactions.sorted(by: { ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast) })
                .enumerated()
            {
                lines.append(
                    row(
                        transaction, appUserId: appUserId, alias: alias, product: catalog[transaction.productId ?? ""],
                        listsEntitlements: index % 3 != 2))
            }
            if number % 11 == 5 {
                otherStoreRows += 1
                lines.append(
                    Self.line([
                        appUserId, alias, "US", "web_monthly", "Web monthly", RevenueCatExport.format(instant.addingTimeInterval(-86_400)),
                        RevenueCatExport.format(instant.addingTimeInterval(29 * 86_400)), "", "stripe", "true", "false", "false", "",
                        "sub_\(Self.hex(number))", "in_\(Self.hex(number))", "[\"web\"]", "PURCHASED",
                    ]))
            }
            if number % 13 == 6 {
                otherStoreRows += 1
                lines.append(
                    Self.line([
                        appUserId, alias, "DE", "premium_monthly_android", "Premium; Android",
                        RevenueCatExport.format(instant.addingTimeInterval(-86_400)),
                        RevenueCatExport.format(instant.addingTimeInterval(29 * 86_400)), "", "play_store", "true", "false", "false", "",
                        "GPA.\(number)-0000", "GPA.\(number)-0000", "[\"premium.monthly\"]", "PURCHASED",
                    ]))
            }
            if number % 97 == 42 {
                // A chain RevenueCat remembers that Apple does not know (another app, a typo).
                let id = String(1_999_999_999_000_000 + number)
                unknown.append(id)
                lines.append(
                    Self.line([
                        appUserId, alias, "US", "premium.monthly", "Premium monthly",
                        RevenueCatExport.format(instant.addingTimeInterval(-400 * 86_400)),
                        RevenueCatExport.format(instant.addingTimeInterval(-370 * 86_400)), "", "app_store", "true", "false",
                        store.environment == .sandbox ? "true" : "false", "", id, id, "[]", "PURCHASED",
                    ]))
            }
            truths.append(
                CustomerTruth(
                    appUserId: appUserId, aliases: alias == appUserId ? [] : [alias], simulatorCustomerId: customerId,
                    entitlements: entitlements(of: customerId, transactions: transactions, catalog: catalog, at: instant),
                    unknownTransactionIds: unknown))
        }
        return (lines.joined(separator: "\n") + "\n", Truth(at: instant, rows: lines.count - 1, otherStoreRows: otherStoreRows, customers: truths))
    }

    private func row(
        _ transaction: JWSTransactionDecodedPayload, appUserId: String, alias: String, product: SimulatedProduct?, listsEntitlements: Bool
    )
        -> String
    {
        let type = transaction.type ?? product?.type
        let autoRenewable = type == .autoRenewableSubscription
        var end = transaction.expiresDate
        if type == .nonRenewingSubscription, let start = transaction.purchaseDate, let product {
            end = product.periodEnd(from: start)
        }
        var effectiveEnd = end
        if autoRenewable, let chain = transaction.originalTransactionId, let truth = store.subscription(chain),
            truth.lastTransactionId == transaction.transactionId, truth.isInBillingRetryPeriod, let grace = truth.gracePeriodExpiresDate
        {
            effectiveEnd = max(end ?? grace, grace)
        }
        let entitlements = type == .consumable ? "[]" : "[\"\(transaction.productId ?? "")\"]"
        let trial = transaction.offerType == .introductoryOffer && (transaction.price ?? 1) == 0
        return Self.line([
            appUserId, alias, transaction.storefront ?? "USA", transaction.productId ?? "", "\(transaction.productId ?? ""); App Store",
            transaction.purchaseDate.map(RevenueCatExport.format) ?? "", end.map(RevenueCatExport.format) ?? "",
            effectiveEnd.map(RevenueCatExport.format) ?? "", "app_store", autoRenewable ? "true" : "false", trial ? "true" : "false",
            transaction.environment == .sandbox ? "true" : "false", transaction.revocationDate.map(RevenueCatExport.format) ?? "",
            transaction.originalTransactionId ?? "", transaction.transactionId ?? "", listsEntitlements ? entitlements : "",
            transaction.inAppOwnershipType == .familyShared ? "FAMILY_SHARED" : "PURCHASED",
        ])
    }

    /// The simulator's truth of what the customer has at `instant`: subscriptions Apple says
    /// are active or in a billing grace period, non-consumables not refunded, and passes
    /// (non-renewing subscriptions, stacked end to end) still running.
    private func entitlements(
        of customerId: String, transactions: [JWSTransactionDecodedPayload], catalog: [String: SimulatedProduct], at instant: Date
    ) -> [EntitlementTruth] {
        var found: [String: EntitlementTruth] = [:]
        for truth in store.subscriptions(ofCustomer: customerId) {
            let status = truth.status(at: instant)
            guard status == .active || status == .billingGracePeriod else { continue }
            let end = status == .billingGracePeriod ? truth.gracePeriodExpiresDate : truth.expiresDate
            found[truth.productId] = EntitlementTruth(
                identifier: truth.productId, productId: truth.productId, originalTransactionId: truth.originalTransactionId, expiresDate: end)
        }
        var passEnds: [String: (end: Date, chain: String)] = [:]
        for transaction in transactions.sorted(by: { ($0.purchaseDate ?? .distantPast) < ($1.purchaseDate ?? .distantPast) }) {
            guard let productId = transaction.productId, transaction.revocationDate == nil, let start = transaction.purchaseDate,
                start <= instant
            else { continue }
            switch transaction.type {
            case .nonConsumable?:
                found[productId] = EntitlementTruth(
                    identifier: productId, productId: productId, originalTransactionId: transaction.originalTransactionId ?? "", expiresDate: nil)
            case .nonRenewingSubscription?:
                guard let product = catalog[productId] else { continue }
                let from = max(start, passEnds[productId]?.end ?? start)
                passEnds[productId] = (product.periodEnd(from: from), transaction.originalTransactionId ?? "")
            default: continue
            }
        }
        for (productId, pass) in passEnds where pass.end > instant {
            found[productId] = EntitlementTruth(identifier: productId, productId: productId, originalTransactionId: pass.chain, expiresDate: pass.end)
        }
        return found.values.sorted { $0.identifier < $1.identifier }
    }

    /// One delimited line, quoting fields that hold the delimiter, a quote or a line break.
    static func line(_ fields: [String]) -> String {
        fields.map { field in
            guard field.contains(where: { $0 == ";" || $0 == "\"" || $0 == "\n" || $0 == "," }) else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ";")
    }

    static func hex(_ number: Int) -> String {
        var generator = SplitMix64(seed: UInt64(number) &+ 0x5EED)
        return String(generator.next(), radix: 16) + String(generator.next(), radix: 16)
    }
}

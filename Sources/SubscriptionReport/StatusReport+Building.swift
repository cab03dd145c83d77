import Foundation
import SubscriptionEngine

extension StatusReport {
    /// The report of `state`, with `revenue`.
    public init(state: CustomerState, revenue: RevenueLedger) {
        let date = ReportDate.string
        at = date(state.instant)
        subscriptions = state.subscriptions.map { s in
            let look = state.nextLooks[s.originalTransactionId]
            return Subscription(
                originalTransactionId: s.originalTransactionId, transactionId: s.transactionId, productId: s.productId,
                subscriptionGroupIdentifier: s.subscriptionGroupIdentifier, status: s.status,
                appleStatus: s.status.appleStatusCode, purchaseDate: date(s.purchaseDate),
                expiresDate: s.expiresDate.map(date), gracePeriodExpiresDate: s.gracePeriodExpiresDate.map(date),
                accessEndsDate: s.accessEndsDate.map(date), willAutoRenew: s.willAutoRenew,
                nextProductId: s.nextProductId, expirationReason: s.expirationReason, offerType: s.offer?.kind,
                offerIdentifier: s.offer?.identifier, ownership: s.ownership,
                revocationDate: s.revocation.map { date($0.date) }, revocationType: s.revocation?.kind,
                revocationPercentage: s.revocation?.percentage, priceIncreaseConsent: s.priceIncreaseConsent,
                eligibleWinBackOfferIds: s.eligibleWinBackOfferIds,
                nextLookDate: look?.date.map(date), nextLookReason: look?.reason
            )
        }
        entitlements = state.entitlements.map { e in
            EntitlementEntry(
                identifier: e.identifier, productId: e.productId, productType: e.productType,
                transactionId: e.transactionId, originalTransactionId: e.originalTransactionId,
                startDate: date(e.startDate), expiresDate: e.expiresDate.map(date), ownership: e.ownership, basis: e.basis
            )
        }
        eligibility = state.eligibility.mapValues { g in
            Eligibility(
                introductoryOffer: g.introductoryOffer, promotionalOffer: g.promotionalOffer, winBackOffer: g.winBackOffer,
                reason: g.introductoryOfferReason, promotionalOfferReason: g.promotionalOfferReason,
                winBackOfferReason: g.winBackOfferReason, eligibleWinBackOfferIds: g.eligibleWinBackOfferIds
            )
        }
        consumables = state.consumables.map {
            Consumable(
                transactionId: $0.transactionId, productId: $0.productId, purchaseDate: date($0.purchaseDate),
                quantity: $0.quantity, revocationDate: $0.revocation.map { date($0.date) }
            )
        }
        self.revenue = Revenue(
            transactions: revenue.transactions.map {
                TransactionEntry(
                    transactionId: $0.transactionId, productId: $0.productId, purchaseDate: date($0.purchaseDate),
                    price: $0.price, commissionRate: $0.commissionRate, refunded: $0.refunded, proceeds: $0.proceeds
                )
            },
            totals: revenue.totals
        )
        diagnostics = state.diagnostics
    }

    /// The report `storekeeper status FILE --at INSTANT [--catalog FILE]` prints.
    ///
    /// - Parameters:
    ///   - input: a `verifyReceipt` response JSON, or `{"transactions": […], "renewalInfo": […]}`
    ///     holding decoded StoreKit 2 payloads (see ``StatusInput``).
    ///   - catalog: the catalog JSON, `{"products": [{"productId", "type",
    ///     "subscriptionGroupIdentifier", "entitlements"?, "duration"?, "price"?}]}`, if any.
    ///   - instant: the instant to evaluate.
    /// - Throws: ``StatusReportError`` when the input or catalog cannot be read.
    public init(input: Data, catalog: Data?, at instant: Date, configuration: EngineConfiguration = EngineConfiguration()) throws(StatusReportError) {
        let history = try StatusInput(json: input).history
        var products = Catalog.empty
        if let catalog {
            do {
                products = try JSONDecoder().decode(Catalog.self, from: catalog)
            } catch {
                throw StatusReportError(code: .unreadableCatalog, message: "The catalog is not a readable catalog JSON: \(error)")
            }
        }
        let state = CustomerState(history: history, catalog: products, at: instant, configuration: configuration)
        self.init(state: state, revenue: RevenueLedger(history: history, catalog: products, at: instant, policy: configuration.commission))
    }

    /// The report as JSON with sorted keys, for printing.
    public func jsonData(prettyPrinted: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// Why a status report could not be made.
public struct StatusReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var code: Code
    /// A human explanation.
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The kinds of failure.
    public enum Code: String, Sendable, Hashable, Codable {
        /// The input is not JSON of either accepted shape.
        case unreadableInput
        /// The input is a `verifyReceipt` response whose status is not 0.
        case receiptNotValid
        /// The catalog is not readable catalog JSON.
        case unreadableCatalog
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

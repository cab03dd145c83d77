import Crypto
import Foundation
import SubscriptionEngine

/// Deterministic assignment of customers to an experiment's variants.
///
/// The bucket is the first 8 bytes of SHA-256(`"<experiment id>:<customer id>"`) read as a
/// big-endian unsigned integer, modulo 10,000; the variants take consecutive ranges of buckets
/// in their order, `percent × 100` each. The same customer gets the same variant on every
/// device, replica and restart, and experiments are independent of each other.
public enum ExperimentAssignment {
    public static func bucket(experimentId: String, customerId: String) -> Int {
        let digest = SHA256.hash(data: Data("\(experimentId):\(customerId)".utf8))
        let value = digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
        return Int(value % 10_000)
    }

    public static func variant(of experiment: OfferingsDocument.Experiment, customerId: String) -> OfferingsDocument.Variant? {
        let bucket = bucket(experimentId: experiment.id, customerId: customerId)
        var upper = 0
        for variant in experiment.variants {
            upper += variant.percent * 100
            if bucket < upper { return variant }
        }
        return experiment.variants.last
    }
}

/// What a request for a placement's offering knows about the customer.
public struct OfferingRequest: Sendable, Hashable {
    public var customerId: String
    public var placement: String
    public var storefront: String?
    public var appVersion: AppVersion?
    public var segment: OfferingsDocument.CustomerSegment
    public var attributes: [String: String]
    /// The product the customer is looking at (retention requests).
    public var productId: String?
    /// The customer's locale (retention requests), e.g. `en-US`.
    public var locale: String?

    public init(
        customerId: String, placement: String, storefront: String? = nil, appVersion: AppVersion? = nil,
        segment: OfferingsDocument.CustomerSegment, attributes: [String: String] = [:], productId: String? = nil, locale: String? = nil
    ) {
        self.productId = productId
        self.locale = locale
        self.customerId = customerId
        self.placement = placement
        self.storefront = storefront
        self.appVersion = appVersion
        self.segment = segment
        self.attributes = attributes
    }
}

/// Why an offering was chosen.
public enum OfferingChoice: Sendable, Hashable {
    case experiment(id: String, variant: String)
    case rule(id: String)
    case placementDefault

    /// As the API shows it.
    package var description: [String: String] {
        switch self {
        case .experiment(let id, let variant): return ["kind": "experiment", "experiment": id, "variant": variant]
        case .rule(let id): return ["kind": "rule", "rule": id]
        case .placementDefault: return ["kind": "default"]
        }
    }
}

extension OfferingsDocument {
    /// The offering for a request: a live experiment on the placement whose audience includes the
    /// customer (or that already enrolled them: `enrolled` is the variant they got), else the
    /// first rule that matches, else the placement's default. `nil` for an unknown placement.
    public func choose(
        _ request: OfferingRequest, now: Date, enrolled: (String) -> String? = { _ in nil }
    ) -> (offering: Offering, choice: OfferingChoice)? {
        candidates(request, now: now, enrolled: enrolled)?.first
    }

    /// Every offering that could answer `request`, in the order ``choose(_:now:enrolled:)``
    /// tries them: the live experiment's variant, the matching rules, the default. A caller
    /// that finds the first one unusable for the customer (an offer they may not redeem) takes
    /// the next. `nil` for an unknown placement.
    public func candidates(
        _ request: OfferingRequest, now: Date, enrolled: (String) -> String? = { _ in nil }
    ) -> [(offering: Offering, choice: OfferingChoice)]? {
        guard let placement = placement(request.placement) else { return nil }
        var found: [(offering: Offering, choice: OfferingChoice)] = []
        for experiment in experiments where experiment.placement == placement.id && experiment.isLive(at: now) {
            let previous = enrolled(experiment.id).flatMap { id in experiment.variants.first { $0.id == id } }
            guard previous != nil || experiment.audience == .everyone || request.segment == .new else { continue }
            if let variant = previous ?? ExperimentAssignment.variant(of: experiment, customerId: request.customerId),
                let offering = offering(variant.offering)
            {
                found.append((offering, .experiment(id: experiment.id, variant: variant.id)))
                break
            }
        }
        for rule in placement.rules where rule.matches(request) {
            if let offering = offering(rule.offering) { found.append((offering, .rule(id: rule.id))) }
        }
        if let offering = offering(placement.defaultOffering) { found.append((offering, .placementDefault)) }
        return found
    }
}

extension OfferingsDocument.Rule {
    package func matches(_ request: OfferingRequest) -> Bool {
        if let storefronts, !storefronts.contains(where: { $0.caseInsensitiveCompare(request.storefront ?? "") == .orderedSame }) {
            return false
        }
        if let minimum = minimumAppVersion.flatMap(AppVersion.init) {
            guard let version = request.appVersion, version >= minimum else { return false }
        }
        if let maximum = maximumAppVersion.flatMap(AppVersion.init) {
            guard let version = request.appVersion, version <= maximum else { return false }
        }
        if let customerStates, !customerStates.contains(request.segment) { return false }
        if let attributes, !attributes.allSatisfy({ request.attributes[$0.key] == $0.value }) { return false }
        if let productIds {
            guard let product = request.productId, productIds.contains(product) else { return false }
        }
        if let locales {
            // Subtags compared case-insensitively, `-` and `_` alike: `en` is a prefix of `en-US`.
            func subtags(_ text: String) -> [String] { text.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init) }
            guard let locale = request.locale.map(subtags) else { return false }
            guard locales.contains(where: { locale.starts(with: subtags($0)) && !subtags($0).isEmpty }) else { return false }
        }
        return true
    }
}

extension OfferingsDocument.CustomerSegment {
    /// Where the customer stands at `state`'s instant: active (an auto-renewable or non-renewing
    /// subscription gives access), lapsed (paid for one once), trial used (took an introductory
    /// offer), or new.
    public init(state: CustomerState, history: PurchaseHistory) {
        let subscriptionKinds: Set<ProductKind> = [.autoRenewable, .nonRenewing]
        if state.entitlements.contains(where: { subscriptionKinds.contains($0.productType) }) {
            self = .active
            return
        }
        let purchases = history.purchases.values.filter { subscriptionKinds.contains($0.productType ?? .autoRenewable) }
        let introductory: Set<OfferKind> = [.freeTrial, .introductory]
        if purchases.contains(where: { $0.offer.map { !introductory.contains($0.kind) } ?? true }) {
            self = .lapsed
        } else if !purchases.isEmpty {
            self = .trialUsed
        } else {
            self = .new
        }
    }
}

import Foundation

/// What an app sells and to whom, changed without an app update: offerings (ordered packages,
/// each a product, with paywall metadata), placements (where a paywall shows) with targeting
/// rules and a default, and experiments on placements. Kept whole in the database, one version
/// per change.
public struct OfferingsDocument: Codable, Sendable, Hashable {
    public var offerings: [Offering]
    public var placements: [Placement]
    public var experiments: [Experiment]

    public init(offerings: [Offering] = [], placements: [Placement] = [], experiments: [Experiment] = []) {
        self.offerings = offerings
        self.placements = placements
        self.experiments = experiments
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        offerings = try container.decodeIfPresent([Offering].self, forKey: .offerings) ?? []
        placements = try container.decodeIfPresent([Placement].self, forKey: .placements) ?? []
        experiments = try container.decodeIfPresent([Experiment].self, forKey: .experiments) ?? []
    }

    public struct Offering: Codable, Sendable, Hashable {
        public var id: String
        /// What a paywall lists; an offering that only answers retention requests may have none.
        public var packages: [Package]
        public var metadata: JSONValue?
        /// What the offering answers when a retention placement chooses it: the retention
        /// message Apple shows on the cancellation sheet.
        public var retention: RetentionAnswer?

        public init(id: String, packages: [Package], metadata: JSONValue? = nil, retention: RetentionAnswer? = nil) {
            self.id = id
            self.packages = packages
            self.metadata = metadata
            self.retention = retention
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            packages = try container.decodeIfPresent([Package].self, forKey: .packages) ?? []
            metadata = try container.decodeIfPresent(JSONValue.self, forKey: .metadata)
            retention = try container.decodeIfPresent(RetentionAnswer.self, forKey: .retention)
        }
    }

    /// A retention answer (Apple's `RealtimeResponseBody`): one of a message, a switch to another
    /// plan, or a promotional offer signed for the customer, each shown with a message uploaded
    /// through the Retention Messaging API.
    public struct RetentionAnswer: Codable, Sendable, Hashable {
        public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
            /// A text message, with or without an image (`message`).
            case message
            /// A switch-plan option (`alternateProduct`).
            case alternateProduct
            /// A promotional offer (`promotionalOffer`), signed for the customer's subscription.
            case promotionalOffer
        }

        public var kind: Kind
        /// The message's identifier (a UUID): required for `message`, optional otherwise.
        public var messageIdentifier: String?
        /// `alternateProduct`: the product to switch to. `promotionalOffer`: the product the offer
        /// belongs to (the product the customer is looking at when absent).
        public var productId: String?
        /// `alternateProduct`: `BILLED_UPFRONT` or `MONTHLY` (a monthly plan with a 12-month
        /// commitment).
        public var billingPlanType: String?
        /// `promotionalOffer`: the offer's identifier in App Store Connect.
        public var offerIdentifier: String?

        public init(
            kind: Kind, messageIdentifier: String? = nil, productId: String? = nil, billingPlanType: String? = nil,
            offerIdentifier: String? = nil
        ) {
            self.kind = kind
            self.messageIdentifier = messageIdentifier
            self.productId = productId
            self.billingPlanType = billingPlanType
            self.offerIdentifier = offerIdentifier
        }

        /// What is wrong with the answer, if anything.
        func problems(offering: String, catalogProducts: Set<String>?) -> [String] {
            var problems: [String] = []
            let prefix = "offering \(offering) retention"
            if let messageIdentifier, UUID(uuidString: messageIdentifier) == nil {
                problems.append("\(prefix): messageIdentifier must be a UUID")
            }
            if let productId, let catalog = catalogProducts, !catalog.contains(productId) {
                problems.append("\(prefix): product \(productId) is not in the app's catalog")
            }
            if let billingPlanType, !["BILLED_UPFRONT", "MONTHLY"].contains(billingPlanType) {
                problems.append("\(prefix): billingPlanType must be BILLED_UPFRONT or MONTHLY")
            }
            switch kind {
            case .message:
                if messageIdentifier == nil { problems.append("\(prefix): a message needs its messageIdentifier") }
                if productId != nil || billingPlanType != nil || offerIdentifier != nil {
                    problems.append("\(prefix): a message has only a messageIdentifier")
                }
            case .alternateProduct:
                if productId == nil { problems.append("\(prefix): an alternateProduct needs the productId to switch to") }
                if offerIdentifier != nil { problems.append("\(prefix): an alternateProduct has no offerIdentifier") }
            case .promotionalOffer:
                if offerIdentifier.map({ !(1...256).contains($0.utf8.count) }) ?? true {
                    problems.append("\(prefix): a promotionalOffer needs its offerIdentifier")
                }
                if billingPlanType != nil { problems.append("\(prefix): a promotionalOffer has no billingPlanType") }
            }
            return problems
        }
    }

    public struct Package: Codable, Sendable, Hashable {
        public var id: String
        public var productId: String

        public init(id: String, productId: String) {
            self.id = id
            self.productId = productId
        }
    }

    public struct Placement: Codable, Sendable, Hashable {
        public var id: String
        /// Where the placement shows: a paywall in the app (the default) or Apple's cancellation
        /// sheet (`retention`, answered through the Retention Messaging real-time endpoint).
        public var kind: Kind
        /// The offering when no rule matches and no experiment runs.
        public var defaultOffering: String
        /// Tried in order; the first that matches chooses.
        public var rules: [Rule]

        public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
            case paywall
            case retention
        }

        public init(id: String, kind: Kind = .paywall, defaultOffering: String, rules: [Rule] = []) {
            self.id = id
            self.kind = kind
            self.defaultOffering = defaultOffering
            self.rules = rules
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            kind = try container.decodeIfPresent(Kind.self, forKey: .kind) ?? .paywall
            defaultOffering = try container.decode(String.self, forKey: .defaultOffering)
            rules = try container.decodeIfPresent([Rule].self, forKey: .rules) ?? []
        }
    }

    /// A targeting rule: every condition given must hold.
    public struct Rule: Codable, Sendable, Hashable {
        public var id: String
        public var offering: String
        /// ISO 3166-1 alpha-3 storefront countries (`USA`, `DEU`…).
        public var storefronts: [String]?
        /// Inclusive bounds on the app's version (dotted numbers, `2.10` after `2.9`).
        public var minimumAppVersion: String?
        public var maximumAppVersion: String?
        public var customerStates: [CustomerSegment]?
        /// Attributes the app sends with the request, all of which must be equal.
        public var attributes: [String: String]?
        /// The product the customer is looking at (retention requests: the subscription about to
        /// be cancelled).
        public var productIds: [String]?
        /// The customer's locale (retention requests): `en` matches `en-US`, `en-US` only itself.
        public var locales: [String]?

        public init(
            id: String, offering: String, storefronts: [String]? = nil, minimumAppVersion: String? = nil, maximumAppVersion: String? = nil,
            customerStates: [CustomerSegment]? = nil, attributes: [String: String]? = nil, productIds: [String]? = nil,
            locales: [String]? = nil
        ) {
            self.productIds = productIds
            self.locales = locales
            self.id = id
            self.offering = offering
            self.storefronts = storefronts
            self.minimumAppVersion = minimumAppVersion
            self.maximumAppVersion = maximumAppVersion
            self.customerStates = customerStates
            self.attributes = attributes
        }
    }

    /// An experiment on a placement: variants (offerings) with a traffic split.
    public struct Experiment: Codable, Sendable, Hashable {
        public var id: String
        public var placement: String
        /// 2 to 4 variants; the first is the control; percents add up to 100.
        public var variants: [Variant]
        public var audience: Audience
        public var startAt: Date?
        public var stopAt: Date?
        /// `running` or `stopped` (stopping rolls the winner out).
        public var status: Status
        /// The variant rolled out when it stopped.
        public var winner: String?

        public enum Audience: String, Codable, Sendable, Hashable {
            /// Customers who never bought anything (the default).
            case newCustomers
            case everyone
        }

        public enum Status: String, Codable, Sendable, Hashable {
            case running, stopped
        }

        public init(
            id: String, placement: String, variants: [Variant], audience: Audience = .newCustomers, startAt: Date? = nil, stopAt: Date? = nil,
            status: Status = .running, winner: String? = nil
        ) {
            self.id = id
            self.placement = placement
            self.variants = variants
            self.audience = audience
            self.startAt = startAt
            self.stopAt = stopAt
            self.status = status
            self.winner = winner
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            placement = try container.decode(String.self, forKey: .placement)
            variants = try container.decode([Variant].self, forKey: .variants)
            audience = try container.decodeIfPresent(Audience.self, forKey: .audience) ?? .newCustomers
            startAt = try container.decodeIfPresent(Date.self, forKey: .startAt)
            stopAt = try container.decodeIfPresent(Date.self, forKey: .stopAt)
            status = try container.decodeIfPresent(Status.self, forKey: .status) ?? .running
            winner = try container.decodeIfPresent(String.self, forKey: .winner)
        }

        /// Whether customers are being enrolled at `now`.
        public func isLive(at now: Date) -> Bool {
            status == .running && (startAt.map { now >= $0 } ?? true) && (stopAt.map { now < $0 } ?? true)
        }
    }

    public struct Variant: Codable, Sendable, Hashable {
        public var id: String
        public var offering: String
        public var percent: Int

        public init(id: String, offering: String, percent: Int) {
            self.id = id
            self.offering = offering
            self.percent = percent
        }
    }

    /// Where a customer stands, for targeting.
    public enum CustomerSegment: String, Codable, Sendable, Hashable, CaseIterable {
        /// Never bought anything.
        case new
        /// Took an introductory offer and has no access now.
        case trialUsed
        /// Paid for a subscription once and has no access now.
        case lapsed
        /// Has an active subscription now.
        case active
    }

    public func offering(_ id: String) -> Offering? { offerings.first { $0.id == id } }
    public func placement(_ id: String) -> Placement? { placements.first { $0.id == id } }
    public func experiment(_ id: String) -> Experiment? { experiments.first { $0.id == id } }

    /// What is wrong with the document, if anything: unknown references, duplicate ids, bad
    /// splits, products outside the catalog, more than one live experiment on a placement.
    public func problems(catalogProducts: Set<String>?) -> [String] {
        var problems: [String] = []
        func checkId(_ id: String, _ what: String) {
            if id.isEmpty || id.utf8.count > 64 || !id.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }) {
                problems.append("\(what) id \"\(id)\" must be 1 to 64 letters, digits, '.', '_' or '-'")
            }
        }
        for (what, ids) in [("offering", offerings.map(\.id)), ("placement", placements.map(\.id)), ("experiment", experiments.map(\.id))] {
            for id in ids { checkId(id, what) }
            let repeated = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            if !repeated.isEmpty { problems.append("\(what) ids repeat: \(repeated.joined(separator: ", "))") }
        }
        let offeringIds = Set(offerings.map(\.id))
        for offering in offerings {
            if offering.packages.isEmpty, offering.retention == nil { problems.append("offering \(offering.id) has no package") }
            if let retention = offering.retention { problems += retention.problems(offering: offering.id, catalogProducts: catalogProducts) }
            for package in offering.packages {
                checkId(package.id, "package")
                if let catalog = catalogProducts, !catalog.contains(package.productId) {
                    problems.append("offering \(offering.id): product \(package.productId) is not in the app's catalog")
                }
            }
            if Set(offering.packages.map(\.id)).count != offering.packages.count { problems.append("offering \(offering.id): package ids repeat") }
        }
        for placement in placements {
            if !offeringIds.contains(placement.defaultOffering) {
                problems.append("placement \(placement.id): no offering \(placement.defaultOffering)")
            }
            for rule in placement.rules {
                checkId(rule.id, "rule")
                if !offeringIds.contains(rule.offering) { problems.append("placement \(placement.id) rule \(rule.id): no offering \(rule.offering)") }
                for version in [rule.minimumAppVersion, rule.maximumAppVersion].compactMap({ $0 }) where AppVersion(version) == nil {
                    problems.append("placement \(placement.id) rule \(rule.id): \(version) is not a dotted version")
                }
            }
        }
        if placements.filter({ $0.kind == .retention }).count > 1 {
            problems.append("at most one placement is a retention placement: Apple asks one question, what to show on the cancellation sheet")
        }
        let retentionOfferings = Set(offerings.filter { $0.retention != nil }.map(\.id))
        for placement in placements where placement.kind == .retention {
            let chosen =
                [placement.defaultOffering] + placement.rules.map(\.offering)
                + experiments.filter { $0.placement == placement.id }.flatMap { $0.variants.map(\.offering) }
            for offering in Set(chosen).sorted() where offeringIds.contains(offering) && !retentionOfferings.contains(offering) {
                problems.append("retention placement \(placement.id): offering \(offering) has no retention answer")
            }
            for experiment in experiments where experiment.placement == placement.id && experiment.audience != .everyone {
                problems.append("experiment \(experiment.id): a retention placement's customers are subscribers, so its audience must be everyone")
            }
        }
        let placementIds = Set(placements.map(\.id))
        for experiment in experiments {
            if !placementIds.contains(experiment.placement) {
                problems.append("experiment \(experiment.id): no placement \(experiment.placement)")
            }
            if !(2...4).contains(experiment.variants.count) { problems.append("experiment \(experiment.id): 2 to 4 variants") }
            if experiment.variants.reduce(0, { $0 + $1.percent }) != 100 || experiment.variants.contains(where: { $0.percent < 0 }) {
                problems.append("experiment \(experiment.id): the variants' percents must add up to 100")
            }
            for variant in experiment.variants {
                checkId(variant.id, "variant")
                if !offeringIds.contains(variant.offering) {
                    problems.append("experiment \(experiment.id) variant \(variant.id): no offering \(variant.offering)")
                }
            }
            if Set(experiment.variants.map(\.id)).count != experiment.variants.count {
                problems.append("experiment \(experiment.id): variant ids repeat")
            }
            if let winner = experiment.winner, !experiment.variants.contains(where: { $0.id == winner }) {
                problems.append("experiment \(experiment.id): no variant \(winner)")
            }
            if let start = experiment.startAt, let stop = experiment.stopAt, stop <= start {
                problems.append("experiment \(experiment.id): stopAt must follow startAt")
            }
        }
        let running = Dictionary(grouping: experiments.filter { $0.status == .running }, by: \.placement).filter { $0.value.count > 1 }
        for (placement, list) in running.sorted(by: { $0.key < $1.key }) {
            problems.append("placement \(placement) has more than one running experiment: \(list.map(\.id).sorted().joined(separator: ", "))")
        }
        return problems
    }
}

/// A dotted app version (`2.10.1`), compared number by number.
public struct AppVersion: Comparable, Sendable, Hashable {
    public let parts: [Int]

    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.count <= 4, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        self.parts = parts.compactMap { $0 }
    }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let (left, right) = (index < lhs.parts.count ? lhs.parts[index] : 0, index < rhs.parts.count ? rhs.parts[index] : 0)
            if left != right { return left < right }
        }
        return false
    }

    public static func == (lhs: AppVersion, rhs: AppVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }

    public func hash(into hasher: inout Hasher) {
        var trimmed = parts
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }
}

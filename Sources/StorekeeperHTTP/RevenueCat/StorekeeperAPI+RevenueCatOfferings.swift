import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// Offerings as RevenueCat's SDK decodes them (`OfferingsResponse` in purchases-ios), from
/// Storekeeper's offerings document:
///
/// - each Storekeeper offering with packages is a RevenueCat offering: `identifier` its id,
///   `description` its metadata's `description` string (else its id), `metadata` its metadata
///   object, each package `{identifier, platform_product_identifier}` its id and product (a
///   package id naming one of RevenueCat's standard packages without its `$`, which Storekeeper
///   ids may not hold, gets it back: `rc_monthly` is `$rc_monthly`, so `offering.monthly` works);
///   offerings without packages (retention answers only) are left out;
/// - each paywall placement is a RevenueCat placement: `offering_ids_by_placement` names the
///   offering the placement chooses for this customer now (an experiment's variant, a
///   matching rule, the default), with `X-Storefront` and `X-Client-Version` as the storefront
///   and app version rules test; a first exposure to a live experiment enrols the customer,
///   as Storekeeper's own offerings route does;
/// - the current offering (`current_offering_id`, also `fallback_offering_id`) is what the
///   placement `default` chooses, else the first paywall placement; `targeting` names the
///   rule that chose it (`revision` is the offerings document's version).
package struct RevenueCatOfferingsResponse: Encodable, Sendable {
    package struct Package: Encodable, Sendable {
        package var identifier: String
        package var platformProductIdentifier: String

        enum CodingKeys: String, CodingKey {
            case identifier
            case platformProductIdentifier = "platform_product_identifier"
        }
    }

    package struct Offering: Encodable, Sendable {
        package var identifier: String
        package var description: String
        package var packages: [Package]
        package var metadata: [String: JSONValue]
    }

    package struct Placements: Encodable, Sendable {
        package var fallbackOfferingId: String?
        package var offeringIdsByPlacement: [String: String]

        enum CodingKeys: String, CodingKey {
            case fallbackOfferingId = "fallback_offering_id"
            case offeringIdsByPlacement = "offering_ids_by_placement"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            if let fallbackOfferingId {
                try container.encode(fallbackOfferingId, forKey: .fallbackOfferingId)
            } else {
                try container.encodeNil(forKey: .fallbackOfferingId)
            }
            try container.encode(offeringIdsByPlacement, forKey: .offeringIdsByPlacement)
        }
    }

    package struct Targeting: Encodable, Sendable {
        package var revision: Int
        package var ruleId: String

        enum CodingKeys: String, CodingKey {
            case revision
            case ruleId = "rule_id"
        }
    }

    package var currentOfferingId: String?
    package var offerings: [Offering]
    package var placements: Placements
    package var targeting: Targeting?

    enum CodingKeys: String, CodingKey {
        case currentOfferingId = "current_offering_id"
        case offerings
        case placements
        case targeting
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let currentOfferingId {
            try container.encode(currentOfferingId, forKey: .currentOfferingId)
        } else {
            try container.encodeNil(forKey: .currentOfferingId)
        }
        try container.encode(offerings, forKey: .offerings)
        try container.encode(placements, forKey: .placements)
        try container.encodeIfPresent(targeting, forKey: .targeting)
    }
}

extension StorekeeperAPI {
    /// `GET v1/subscribers/{appUserId}/offerings`: the app's offerings and what each paywall
    /// placement shows this customer now (``RevenueCatOfferingsResponse``).
    package func revenueCatOfferings(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        let customer = try await revenueCatCustomer(app: app, appUserId: try context.appUserId())
        let (stored, document) = try await offerings(app: app)
        let now = clock()
        let history = PurchaseHistory(ledger: try await store.ledger(appId: app.id, customerId: customer.id))
        let state = CustomerState(history: history, catalog: app.catalog, at: now)
        let segment = OfferingsDocument.CustomerSegment(state: state, history: history)
        let storefront = request.headers[.revenueCatStorefront].flatMap { (2...3).contains($0.count) ? $0 : nil }
        let version = request.headers[.revenueCatClientVersion].flatMap(AppVersion.init)
        let listed = document.offerings.filter { !$0.packages.isEmpty }
        let listedIds = Set(listed.map(\.id))
        let paywalls = document.placements.filter { $0.kind == .paywall }
        let currentPlacement = paywalls.first { $0.id == "default" } ?? paywalls.first
        var byPlacement: [String: String] = [:]
        var current: (offering: String, choice: OfferingChoice)?
        for placement in paywalls {
            let enrolled = try await enrolments(app: app, document: document, placement: placement.id, customer: customer.id, at: now)
            let offeringRequest = OfferingRequest(
                customerId: customer.id, placement: placement.id, storefront: storefront, appVersion: version, segment: segment)
            guard let (offering, choice) = document.choose(offeringRequest, now: now, enrolled: { enrolled[$0] }), listedIds.contains(offering.id)
            else { continue }
            if case .experiment(let experimentId, let variant) = choice, enrolled[experimentId] == nil {
                try await enrol(
                    app: app, customer: customer.id, experimentId: experimentId, variant: variant, placement: placement.id, offering: offering.id,
                    at: now)
            }
            byPlacement[placement.id] = offering.id
            if placement.id == currentPlacement?.id { current = (offering.id, choice) }
        }
        var targeting: RevenueCatOfferingsResponse.Targeting?
        if let current, case .rule(let rule) = current.choice { targeting = .init(revision: stored?.version ?? 0, ruleId: rule) }
        let answer = RevenueCatOfferingsResponse(
            currentOfferingId: current?.offering,
            offerings: listed.map { offering in
                let metadata: [String: JSONValue] = if case .object(let object)? = offering.metadata { object } else { [:] }
                let description: String = if case .string(let text)? = metadata["description"] { text } else { offering.id }
                return .init(
                    identifier: offering.id, description: description,
                    packages: offering.packages.map {
                        .init(identifier: Self.revenueCatPackageIdentifier($0.id), platformProductIdentifier: $0.productId)
                    }, metadata: metadata)
            },
            placements: .init(fallbackOfferingId: current?.offering, offeringIdsByPlacement: byPlacement), targeting: targeting)
        return JSONBody.response(json: ByteBuffer(data: try JSONBody.encoder().encode(answer)))
    }

    /// RevenueCat's standard package identifiers (the SDK's `PackageType`), without their `$`.
    static let revenueCatStandardPackages: Set<String> = [
        "rc_lifetime", "rc_annual", "rc_six_month", "rc_three_month", "rc_two_month", "rc_monthly", "rc_weekly",
    ]

    /// The RevenueCat identifier of a Storekeeper package id: `$` + the id for a standard
    /// package, else the id.
    static func revenueCatPackageIdentifier(_ id: String) -> String {
        revenueCatStandardPackages.contains(id) ? "$" + id : id
    }

    /// `GET v1/product_entitlement_mapping`: the entitlements each catalog product grants, as
    /// the engine grants them (a product listing none grants the entitlement named by its id; a
    /// consumable grants none), for the SDK's offline entitlements:
    /// `{"product_entitlement_mapping": {productId: {product_identifier, entitlements}}}`.
    package func revenueCatProductEntitlementMapping(_ request: Request, _ context: RevenueCatSDKContext) async throws -> Response {
        let app = try context.sdkApp()
        var mapping: [String: Any] = [:]
        for product in app.catalog.products where mapping[product.productId] == nil {
            let entitlements = product.type == .consumable ? [] : app.catalog.entitlements(of: product.productId)
            mapping[product.productId] = ["product_identifier": product.productId, "entitlements": entitlements]
        }
        let data = try JSONSerialization.data(withJSONObject: ["product_entitlement_mapping": mapping], options: [.sortedKeys])
        return JSONBody.response(json: ByteBuffer(data: data))
    }
}

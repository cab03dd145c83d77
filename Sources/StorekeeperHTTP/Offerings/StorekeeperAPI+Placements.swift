import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

extension StorekeeperAPI {
    package struct CustomerOfferingResponse: ResponseEncodable {
        package struct Package: Encodable {
            package struct Eligibility: Encodable {
                package var introductoryOffer: Bool
                package var promotionalOffer: Bool
            }
            package var id: String
            package var productId: String
            /// For subscriptions: what the customer may be offered in the product's group.
            package var eligibility: Eligibility?
        }
        package struct Offering: Encodable {
            package var id: String
            package var packages: [Package]
            package var metadata: JSONValue?
        }
        package var placement: String
        package var version: Int
        package var segment: String
        package var offering: Offering
        package var chosenBy: [String: String]
    }

    /// `GET /v1/apps/{appId}/customers/{customerId}/offerings?placement=…&storefront=…&appVersion=…&attribute.<name>=<value>`:
    /// the offering the placement shows this customer now, with each package's eligibility and
    /// what chose it. The first exposure to a live experiment enrols the customer (the variant
    /// is kept from then on) and emits `experiment.enrolled`.
    package func customerOffering(_ request: Request, _ context: APIRequestContext) async throws -> CustomerOfferingResponse {
        let (app, customer) = (try context.caller().app, try context.customerId())
        let query = request.uri.queryParameters
        guard let placement = query.get("placement"), (1...64).contains(placement.utf8.count) else {
            throw APIError.badRequest("placement is required")
        }
        let storefront = query.get("storefront")
        if let storefront, !(2...3).contains(storefront.count) || !storefront.allSatisfy(\.isLetter) {
            throw APIError.badRequest("storefront must be a country code such as USA")
        }
        var version: AppVersion?
        if let text = query.get("appVersion") {
            guard let parsed = AppVersion(text) else { throw APIError.badRequest("appVersion must be a dotted version such as 2.4.1") }
            version = parsed
        }
        var attributes: [String: String] = [:]
        for (key, value) in query where key.hasPrefix("attribute.") {
            let name = String(key.dropFirst("attribute.".count))
            guard (1...64).contains(name.utf8.count), value.utf8.count <= 256, attributes.count < 20 else {
                throw APIError.badRequest("at most 20 attributes, names of 1 to 64 bytes, values up to 256")
            }
            attributes[name] = String(value)
        }
        let (stored, document) = try await offerings(app: app)
        let now = clock()
        let history = PurchaseHistory(ledger: try await store.ledger(appId: app.id, customerId: customer))
        let state = CustomerState(history: history, catalog: app.catalog, at: now)
        let segment = OfferingsDocument.CustomerSegment(state: state, history: history)
        let offeringRequest = OfferingRequest(
            customerId: customer, placement: placement, storefront: storefront, appVersion: version, segment: segment, attributes: attributes)
        let enrolments = try await enrolments(app: app, document: document, placement: placement, customer: customer, at: now)
        guard let (offering, choice) = document.choose(offeringRequest, now: now, enrolled: { enrolments[$0] }) else {
            throw APIError(.notFound, code: .notFound, message: "no placement \(placement)")
        }
        if case .experiment(let experimentId, let variant) = choice, enrolments[experimentId] == nil {
            try await enrol(
                app: app, customer: customer, experimentId: experimentId, variant: variant, placement: placement, offering: offering.id, at: now)
        }
        let packages = offering.packages.map { package -> CustomerOfferingResponse.Package in
            let group = app.catalog.product(package.productId)?.subscriptionGroupIdentifier
            let eligibility = group.map { group -> CustomerOfferingResponse.Package.Eligibility in
                guard let known = state.eligibility[group] else { return .init(introductoryOffer: true, promotionalOffer: false) }
                return .init(introductoryOffer: known.introductoryOffer, promotionalOffer: known.promotionalOffer)
            }
            return .init(id: package.id, productId: package.productId, eligibility: eligibility)
        }
        return CustomerOfferingResponse(
            placement: placement, version: stored?.version ?? 0, segment: segment.rawValue,
            offering: .init(id: offering.id, packages: packages, metadata: offering.metadata), chosenBy: choice.description)
    }

    /// The variants `customer` got in the experiments live on `placement` at `now`, by experiment.
    package func enrolments(
        app: AppRuntime, document: OfferingsDocument, placement: String, customer: String, at now: Date
    ) async throws -> [String: String] {
        var enrolments: [String: String] = [:]
        for experiment in document.experiments where experiment.placement == placement && experiment.isLive(at: now) {
            if let enrolment = try await store.enrolment(appId: app.id, experimentId: experiment.id, customerId: customer) {
                enrolments[experiment.id] = enrolment.variant
            }
        }
        return enrolments
    }

    /// Records the first exposure and its event, in one changeset (idempotent: a second replica
    /// enrolling the same customer at once writes nothing more, and the variant is the same).
    package func enrol(
        app: AppRuntime, customer: String, experimentId: String, variant: String, placement: String, offering: String, at now: Date
    ) async throws {
        let key = "\(EventType.experimentEnrolled):\(experimentId):\(customer)"
        var details = EventDetails(source: "offerings")
        details.eventId = CustomerEvents.publicId(appId: app.id, key: key)
        details.experimentId = experimentId
        details.variant = variant
        details.placement = placement
        details.offeringId = offering
        var event = EventRecord(
            appId: app.id, customerId: customer, type: .experimentEnrolled, details: details, occurredAt: now, idempotencyKey: "event:" + key)
        event.destinations = app.destinations(type: .experimentEnrolled, environment: nil)
        var changeset = Changeset(appId: app.id, at: now, links: [CustomerLink(customerId: customer)], events: [event])
        changeset.enrolments = [
            ExperimentEnrolment(appId: app.id, experimentId: experimentId, customerId: customer, variant: variant, enrolledAt: now)
        ]
        try await store.apply(changeset)
    }
}

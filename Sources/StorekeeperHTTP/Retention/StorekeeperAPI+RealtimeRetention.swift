import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import SubscriptionEngine

extension StorekeeperAPI {
    /// The one answer to every real-time request the server does not answer: Apple then shows
    /// the app's default retention message. The sender learns nothing it could use.
    package static let realtimeRequestRefused = APIError(
        .badRequest, code: .realtimeRequestRefused,
        message: "the body is not a real-time request this server answers at this address")

    /// How far a request's `signedDate` may be from the server's clock: Apple signs it just
    /// before it sends it and waits well under a second for the answer.
    package static let realtimeRequestMaximumSkew: TimeInterval = 300

    /// The largest body the route reads: Apple's request is a JWS of about 4 kB.
    package static let realtimeRequestMaximumBodySize = 32 * 1024

    /// `POST /v1/apps/{appId}/retention/realtime` (no key: Apple calls it; the app's Get Retention
    /// Message endpoint). Verifies the request as Apple's verifier does (signature, chain, the
    /// app's Apple id in production, and in any environment when
    /// the app configures it; the environment), refuses one signed more than 5 minutes
    /// from now or answered before (its `requestIdentifier`), chooses the answer from the
    /// offerings document's retention placement and the customer's state (``RetentionChoice``),
    /// records it as a customer event in the same write that makes the request's identifier
    /// known, and answers Apple's `RealtimeResponseBody`.
    package func answerRealtimeRequest(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let now = clock()
        guard let appId = try? context.pathParameter("appId"), let app = apps.apps[appId] else {
            throw refuseRealtime("unknown_app")
        }
        let buffer = try await collectBody(request, upTo: Self.realtimeRequestMaximumBodySize)
        guard let body = try? JSONDecoder().decode(RealtimeRequestBody.self, from: Data(buffer: buffer)),
            let signedPayload = body.signedPayload
        else { throw refuseRealtime("malformed") }
        let decoded: DecodedRealtimeRequestBody
        switch await app.verify(signedOnly: true, { await $0.verifyAndDecodeRealtimeRequest(signedPayload, now: now) }) {
        case .invalid(let failure): throw refuseRealtime(failure.reason.rawValue)
        case .valid(let value): decoded = value
        }
        // Apple's verifier names the app only in production; a sandbox request that names
        // another app's Apple id is refused too, when the app says its own.
        if let expected = app.configuration.appAppleId, let named = decoded.appAppleId, named != expected {
            throw refuseRealtime(VerificationFailure.Reason.invalidAppIdentifier.rawValue)
        }
        guard let chainId = decoded.originalTransactionId, (1...64).contains(chainId.utf8.count),
            let requestId = decoded.requestIdentifier.flatMap(UUID.init(uuidString:))?.uuidString.lowercased(),
            let productId = decoded.productId, (1...256).contains(productId.utf8.count)
        else { throw refuseRealtime("incomplete") }
        guard let signedDate = decoded.signedDate, abs(signedDate.timeIntervalSince(now)) <= Self.realtimeRequestMaximumSkew else {
            throw refuseRealtime("stale")
        }
        let locale = decoded.userLocale.flatMap { $0.utf8.count <= 35 ? $0 : nil }

        guard let customerId = try await store.customer(appId: app.id, alias: .originalTransactionId(chainId)) else {
            throw refuseRealtime("unknown_subscription")
        }
        let history = PurchaseHistory(ledger: try await store.ledger(appId: app.id, customerId: customerId))
        let state = CustomerState(history: history, catalog: app.catalog, at: now)
        let storefront = history.purchases.values.filter { $0.originalTransactionId == chainId }.max { $0.purchaseDate < $1.purchaseDate }?
            .storefront
        let subject = RetentionChoice.Subject(
            customerId: customerId, originalTransactionId: chainId, productId: productId, locale: locale, state: state,
            segment: OfferingsDocument.CustomerSegment(state: state, history: history), storefront: storefront)

        let (_, document) = try await offerings(app: app)
        let choosing = RetentionChoice(app: app, document: document, now: now)
        var enrolments: [String: String] = [:]
        if let placement = choosing.placement {
            enrolments = try await self.enrolments(app: app, document: document, placement: placement.id, customer: customerId, at: now)
        }
        let chosen = choosing.choose(subject, enrolled: { enrolments[$0] })
        let answer = try realtimeAnswer(chosen, subject: subject, app: app, now: now)

        var details = EventDetails(productId: productId, source: "retentionMessaging")
        details.environment = decoded.environment?.rawValue
        details.storefront = storefront
        details.requestIdentifier = requestId
        details.locale = locale
        details.placement = chosen?.placement
        details.offeringId = chosen?.offering.id
        details.messageIdentifier = chosen?.answer.messageIdentifier
        if case .experiment(let experimentId, let variant) = chosen?.choice {
            details.experimentId = experimentId
            details.variant = variant
        }
        let type: EventType
        switch chosen?.answer.kind {
        case .message: type = .retentionMessageShown
        case .alternateProduct:
            type = .retentionAlternateProductShown
            details.alternateProductId = chosen?.answer.productId
            details.billingPlanType = chosen?.answer.billingPlanType
        case .promotionalOffer:
            type = .retentionOfferShown
            details.offerIdentifier = chosen?.answer.offerIdentifier
        case nil: type = .retentionDefaultShown
        }
        let key = "retention:\(requestId)"
        details.eventId = CustomerEvents.publicId(appId: app.id, key: key)
        var event = EventRecord(
            appId: app.id, customerId: customerId, originalTransactionId: chainId, type: type, details: details, occurredAt: now,
            idempotencyKey: "event:" + key)
        event.destinations = app.destinations(type: type, environment: decoded.environment?.rawValue)
        var changeset = Changeset(appId: app.id, at: now, links: [CustomerLink(customerId: customerId)], events: [event])
        if let chosen, case .experiment(let experimentId, let variant) = chosen.choice, enrolments[experimentId] == nil {
            changeset.enrolments = [
                ExperimentEnrolment(appId: app.id, experimentId: experimentId, customerId: customerId, variant: variant, enrolledAt: now)
            ]
        }
        // The request's identifier becomes known in the same write as its event: a second
        // request with it (a replay, or a copy racing on another replica) writes nothing and
        // is refused.
        guard try await store.apply(changeset).newEvents == 1 else { throw refuseRealtime("replayed") }
        metrics.realtimeRequest(outcome: type.rawValue)
        return JSONBody.response(value: answer)
    }

    /// Apple's `RealtimeResponseBody` for what was chosen (an empty object when nothing was:
    /// Apple shows the default message).
    private func realtimeAnswer(
        _ chosen: RetentionChoice.Chosen?, subject: RetentionChoice.Subject, app: AppRuntime, now: Date
    ) throws
        -> RealtimeResponseBody
    {
        guard let chosen else { return RealtimeResponseBody() }
        let answer = chosen.answer
        switch answer.kind {
        case .message:
            return RealtimeResponseBody(message: Message(messageIdentifier: answer.messageIdentifier))
        case .alternateProduct:
            return RealtimeResponseBody(
                alternateProduct: AlternateProduct(
                    messageIdentifier: answer.messageIdentifier, productId: answer.productId,
                    billingPlanType: answer.billingPlanType.map(BillingPlanType.init(rawValue:))))
        case .promotionalOffer:
            guard let settings = app.configuration.appStoreServerAPI, let key = app.signingKey, let offer = answer.offerIdentifier else {
                throw APIError(.conflict, code: .noAppStoreCredentials, message: "the app has no appStoreServerAPI key to sign offers with")
            }
            let signer = StoreKitJWSSigner(key: key, issuerId: settings.issuerId, bundleId: app.configuration.bundleId)
            let signed: String
            do {
                signed = try signer.promotionalOffer(
                    productId: answer.productId ?? subject.productId, offerIdentifier: offer, transactionId: subject.originalTransactionId,
                    nonce: UUID(), issuedAt: now)
            } catch {
                throw APIError(.internalServerError, code: .signingFailed, message: "the offer could not be signed")
            }
            return RealtimeResponseBody(
                promotionalOffer: PromotionalOffer(messageIdentifier: answer.messageIdentifier, promotionalOfferSignatureV2: signed))
        }
    }

    private func refuseRealtime(_ reason: String) -> APIError {
        metrics.realtimeRequest(outcome: "refused_" + reason)
        return Self.realtimeRequestRefused
    }
}

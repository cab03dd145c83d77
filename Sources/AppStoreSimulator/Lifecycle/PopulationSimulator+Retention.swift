import AppStoreJOSE
import AppStoreModels
import Foundation

/// A customer opened the cancellation sheet: what Apple asks the app's Get Retention Message
/// endpoint (``PopulationConfiguration/asksRetention``). The driver signs it
/// (``SimulatorSigner/signRealtimeRequest(_:store:signedDate:)``), posts it, and hands the answer
/// back to ``PopulationSimulator/resolveRetention(_:answer:decision:)``, which decides whether the
/// customer still cancels.
public struct RetentionRequest: Sendable, Hashable {
    public var originalTransactionId: String
    public var customerId: String
    public var productId: String
    public var userLocale: String
    public var requestIdentifier: String
    /// When the customer opened the sheet (the cancellation, if it goes ahead, is dated then).
    public var date: Date
    var token: Int
}

/// What a simulated customer did on the cancellation sheet: the answer shown and whether they stayed.
public struct RetentionOutcome: Sendable, Hashable, Codable {
    /// `message`, `alternateProduct`, `promotionalOffer`, `none` (an empty answer: Apple's
    /// default message), or `refused` (the endpoint answered an error: Apple's default message too).
    public var shown: String
    public var stayed: Bool
}

extension SimulatorSigner {
    /// The real-time request Apple signs for `request`, at `signedDate`.
    public func signRealtimeRequest(_ request: RetentionRequest, store: SimulatedAppStore, signedDate: Date) throws -> String {
        try certificateAuthority.signRealtimeRequest(
            DecodedRealtimeRequestBody(
                originalTransactionId: request.originalTransactionId, appAppleId: store.appAppleId, productId: request.productId,
                userLocale: request.userLocale, requestIdentifier: request.requestIdentifier, signedDate: signedDate,
                environment: store.environment))
    }
}

extension PopulationSimulator {
    /// Who decides what a customer does with what the cancellation sheet shows.
    public enum RetentionDecision: Sendable, Hashable {
        /// The population's dice, at the behaviour's save, switch and redemption rates.
        case byChance
        /// The customer takes it: stays after a message, switches plans, redeems the offer.
        case accept
        /// The customer cancels anyway.
        case decline
    }

    /// The customer means to turn auto-renew off: with ``PopulationConfiguration/asksRetention``
    /// the cancellation sheet asks the app first (the decision waits for the answer), otherwise
    /// it is turned off at once.
    func cancelOrAsk(_ chain: String, token: Int, at date: Date) throws {
        guard configuration.asksRetention == true, let truth = store.subscription(chain), truth.revocationDate == nil, truth.autoRenewStatus,
            !truth.isInBillingRetryPeriod, truth.sharedFrom == nil, date < truth.expiresDate
        else {
            try setAutoRenew(chain, on: false, at: date)
            return
        }
        let identifier = randomIdentifier()
        output.retentionRequests.append(
            RetentionRequest(
                originalTransactionId: chain, customerId: truth.customerId, productId: truth.productId,
                userLocale: Self.locale(of: storefront(ofChain: chain)), requestIdentifier: identifier, date: date, token: token))
    }

    /// Applies the app's answer to a cancellation sheet (nil: the endpoint failed or refused;
    /// Apple shows the default message): the customer stays with the configured chance of each answer, switching plans or
    /// redeeming the offer (a retention offer, `offerType` 5, on the next renewal); otherwise
    /// auto-renew goes off as they meant. A device's customer says what they do instead of the
    /// dice (`decision`), which then draw nothing.
    public func resolveRetention(
        _ request: RetentionRequest, answer: RealtimeResponseBody?, decision: RetentionDecision = .byChance
    ) throws -> LifecycleOutput {
        output = LifecycleOutput()
        let chain = request.originalTransactionId
        guard tokens[chain] == request.token else { return output }
        var shown = answer == nil ? "refused" : "none"
        var stayed = false
        func takes(_ rate: Double) -> Bool {
            switch decision {
            case .byChance: retentionRandom.chance(rate)
            case .accept: true
            case .decline: false
            }
        }
        if answer?.message != nil {
            shown = "message"
            stayed = takes(behaviour.retentionMessageSaveRate)
        } else if let alternate = answer?.alternateProduct {
            shown = "alternateProduct"
            if let target = alternate.productId, target != request.productId, products[target] != nil,
                takes(behaviour.retentionSwitchRate)
            {
                try changePlan(chain, to: target, at: request.date)
                stayed = store.subscription(chain)?.autoRenewProductId == target
            }
        } else if let offer = answer?.promotionalOffer {
            shown = "promotionalOffer"
            if let claims = offer.promotionalOfferSignatureV2.flatMap(Self.claims), claims.productId == request.productId,
                takes(behaviour.retentionOfferRedemptionRate)
            {
                store.modify(chain) { $0.pendingOffer = PendingOffer(type: .retentionOffer, identifier: claims.offerIdentifier) }
                try notify(.offerRedeemed, nil, chain: chain, at: request.date)
                stayed = true
            }
        }
        retentionOutcomes[chain, default: []].append(RetentionOutcome(shown: shown, stayed: stayed))
        if !stayed { try setAutoRenew(chain, on: false, at: request.date) }
        return output
    }

    /// A version-4 UUID from the retention dice (lower case, as Apple writes them).
    func randomIdentifier() -> String {
        var hex = ""
        for part in 0..<2 {
            var value = retentionRandom.next()
            if part == 0 { value = (value & ~0x0000_0000_0000_F000) | 0x0000_0000_0000_4000 }
            if part == 1 { value = (value & ~(UInt64(0xC0) << 56)) | (UInt64(0x80) << 56) }
            hex += String(value, radix: 16).leftPadded(to: 16)
        }
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// The offer a V2 promotional offer signature names (its payload; Apple would also check the
    /// signature with the app's key).
    static func claims(_ jws: String) -> (productId: String, offerIdentifier: String)? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(parts[1]),
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let product = object["productId"] as? String, let offer = object["offerIdentifier"] as? String
        else { return nil }
        return (product, offer)
    }

    /// The locale of a customer of `storefront`, as the App Store reports it.
    static func locale(of storefront: SimulatedStorefront) -> String {
        switch storefront.country {
        case "DEU": "de-DE"
        case "FRA": "fr-FR"
        case "GBR": "en-GB"
        case "JPN": "ja-JP"
        default: "en-US"
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

import Foundation
import NIOCore
import Testing

@testable import StorekeeperHTTP
@testable import StorekeeperServer
@testable import SubscriptionEngine

/// Status reads answer an unchanged state with the JSON encoded for it before.
@Suite("Status reads: each state encoded once")
struct EncodedStatesTests {
    static func state(_ status: SubscriptionStatus, expires: TimeInterval) -> SubscriptionState {
        SubscriptionState(
            originalTransactionId: "t1", transactionId: "t1", productId: "p", subscriptionGroupIdentifier: "g", status: status,
            purchaseDate: Date(timeIntervalSince1970: 1_700_000_000), expiresDate: Date(timeIntervalSince1970: expires),
            gracePeriodExpiresDate: nil, originalPurchaseDate: nil, willAutoRenew: true, nextProductId: nil, expirationReason: nil,
            offer: nil, ownership: .purchased, revocation: nil, priceIncreaseConsent: nil, eligibleWinBackOfferIds: nil,
            accessEndsDate: Date(timeIntervalSince1970: expires))
    }

    static func json(_ body: ByteBuffer) -> String { String(buffer: body) }

    @Test("the same state gives the same bytes, as the API's encoder writes them; a new state, new bytes; per app and chain")
    func memo() throws {
        let states = EncodedStates(capacity: 3)
        let active = Self.state(.active, expires: 1_702_000_000)
        let first = try states.body(appId: "a", chain: "t1", state: active)
        #expect(Self.json(first) == String(decoding: try JSONBody.encoder().encode(active), as: UTF8.self))
        #expect(Self.json(try states.body(appId: "a", chain: "t1", state: active)) == Self.json(first))
        let expired = Self.state(.expired, expires: 1_702_000_000)
        let changed = try states.body(appId: "a", chain: "t1", state: expired)
        #expect(Self.json(changed).contains(#""status":"expired""#))
        #expect(Self.json(try states.body(appId: "b", chain: "t1", state: active)) == Self.json(first))
        #expect(states.count == 2)
        // Full: the memory starts again, and answers stay right.
        _ = try states.body(appId: "c", chain: "t1", state: active)
        _ = try states.body(appId: "d", chain: "t1", state: expired)
        #expect(states.count == 1)
        #expect(Self.json(try states.body(appId: "a", chain: "t1", state: expired)) == Self.json(changed))
    }
}

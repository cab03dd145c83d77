import AppStoreModels
import Foundation
import Testing

/// Values Apple may extend decode whatever Apple sends and encode it back unchanged.
@Suite struct AppStoreOpenValueTests {
    private struct Envelope<Value: Codable & Equatable>: Codable, Equatable {
        var value: Value
    }

    private func roundTrip<Value: AppStoreOpenValue>(_ json: String, as type: Value.Type) throws -> (Value, String) {
        let decoded = try JSONDecoder().decode(Envelope<Value>.self, from: Data(json.utf8))
        return (decoded.value, String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self))
    }

    @Test func unknownStringValuesRoundTrip() throws {
        let (type, typeJSON) = try roundTrip(#"{"value":"SUBSCRIPTION_PAUSED"}"#, as: NotificationTypeV2.self)
        #expect(type.rawValue == "SUBSCRIPTION_PAUSED" && !type.isKnown)
        #expect(typeJSON == #"{"value":"SUBSCRIPTION_PAUSED"}"#)

        let (product, productJSON) = try roundTrip(#"{"value":"Bundle"}"#, as: ProductType.self)
        #expect(product.description == "Bundle" && !product.isKnown)
        #expect(productJSON == #"{"value":"Bundle"}"#)

        let (ownership, _) = try roundTrip(#"{"value":"GIFTED"}"#, as: InAppOwnershipType.self)
        #expect(ownership != .purchased && ownership != .familyShared)
    }

    @Test func unknownIntegerValuesRoundTrip() throws {
        let (status, statusJSON) = try roundTrip(#"{"value":6}"#, as: Status.self)
        #expect(status.rawValue == 6 && !status.isKnown)
        #expect(statusJSON == #"{"value":6}"#)

        let (offer, offerJSON) = try roundTrip(#"{"value":5}"#, as: OfferType.self)
        #expect(offer == OfferType(rawValue: 5))
        #expect(offerJSON == #"{"value":5}"#)

        let (intent, _) = try roundTrip(#"{"value":99}"#, as: ExpirationIntent.self)
        #expect(intent.description == "99")
    }

    @Test func unknownValuesInsideAPayloadSurviveReEncoding() throws {
        let json =
            #"{"offerDiscountType":"BUY_ONE_GET_ONE","offerType":7,"revocationType":"REFUND_PARTIAL","transactionReason":"GIFT","type":"Bundle"}"#
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(transaction.offerType?.rawValue == 7)
        #expect(transaction.transactionReason?.rawValue == "GIFT")
        let reencoded = try ModelFixtures.tree(try JSONEncoder().encode(transaction))
        #expect(ModelFixtures.difference(reencoded, try ModelFixtures.tree(Data(json.utf8))) == nil)
    }

    @Test func valueOfTheWrongJSONTypeIsADecodingError() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Envelope<Status>.self, from: Data(#"{"value":"ACTIVE"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Envelope<NotificationTypeV2>.self, from: Data(#"{"value":1}"#.utf8))
        }
    }

    @Test func knownListsMatchApplesCounts() {
        #expect(NotificationTypeV2.known.count == 23)
        #expect(Subtype.known.count == 17)
        #expect(Status.known.map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect(SendAttemptResult.known.count == 11)
        #expect(AppStoreEnvironment.known.count == 4)
        #expect(Set(NotificationTypeV2.known.map(\.rawValue)).count == 23)
        #expect(Set(Subtype.known.map(\.rawValue)).count == 17)
    }
}

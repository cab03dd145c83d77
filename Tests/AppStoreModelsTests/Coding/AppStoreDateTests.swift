import AppStoreModels
import Foundation
import Testing

/// Dates are Apple's milliseconds since 1970 whatever the coder's date strategy.
@Suite struct AppStoreDateTests {
    @Test func wholeMillisecondsConvertExactlyBothWays() {
        let date = Date(appStoreMilliseconds: Int64(1_698_148_900_000))
        #expect(date == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(date.appStoreMilliseconds == 1_698_148_900_000)
        #expect(Date(appStoreMilliseconds: Int64(1_698_148_900_123)).appStoreMilliseconds == 1_698_148_900_123)
        #expect(Date(appStoreMilliseconds: Int64(-62_135_769_600_000)).appStoreMilliseconds == -62_135_769_600_000)
    }

    @Test func everyMillisecondOfASecondSurvivesTheRoundTrip() {
        for offset in Int64(0)..<1000 {
            let milliseconds = 1_697_679_936_000 + offset
            #expect(Date(appStoreMilliseconds: milliseconds).appStoreMilliseconds == milliseconds)
        }
    }

    @Test func subMillisecondPartIsTruncatedForRequests() {
        #expect(Date(timeIntervalSince1970: 1_698_148_900.0009).appStoreMilliseconds == 1_698_148_900_000)
        #expect(Date(timeIntervalSince1970: 1_698_148_950.000001).appStoreMilliseconds == 1_698_148_950_000)
        #expect(Date(appStoreMilliseconds: 1_697_679_936_049.7297).appStoreMilliseconds == 1_697_679_936_049)
    }

    @Test func xcodeFractionalMillisecondsDecodeAndReEncodeWithTheirFraction() throws {
        let json =
            #"{"purchaseDate":1697679936049.7297,"expiresDate":1700358336049.7297,"signedDate":1697679936056.485,"environment":"Xcode"}"#
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        let purchase = try #require(transaction.purchaseDate)
        #expect(abs(purchase.timeIntervalSince1970 - 1_697_679_936.0497297) < 0.000_001)
        #expect(purchase.appStoreMilliseconds == 1_697_679_936_049)
        #expect(transaction.expiresDate?.appStoreMilliseconds == 1_700_358_336_049)
        #expect(transaction.signedDate?.appStoreMilliseconds == 1_697_679_936_056)
        #expect(transaction.environment == .xcode)

        let reencoded = try JSONEncoder().encode(transaction)
        #expect(
            ModelFixtures.difference(try ModelFixtures.tree(reencoded), try ModelFixtures.tree(Data(json.utf8))) == nil)
    }

    @Test func coderDateStrategiesAreIgnored() throws {
        let json = Data(#"{"signedDate":1698148900000}"#.utf8)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let renewal = try decoder.decode(JWSRenewalInfoDecodedPayload.self, from: json)
        #expect(renewal.signedDate == Date(timeIntervalSince1970: 1_698_148_900))

        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        #expect(String(decoding: try encoder.encode(renewal), as: UTF8.self) == #"{"signedDate":1698148900000}"#)
    }

    @Test func wholeMillisecondsEncodeAsIntegers() throws {
        let payload = JWSTransactionDecodedPayload(purchaseDate: Date(appStoreMilliseconds: Int64(1_698_148_900_001)))
        #expect(
            String(decoding: try JSONEncoder().encode(payload), as: UTF8.self) == #"{"purchaseDate":1698148900001}"#)
    }

    @Test func absentAndNullDatesDecodeAsNilAndAbsentOnesStayAbsent() throws {
        let payload = try JSONDecoder().decode(
            JWSTransactionDecodedPayload.self, from: Data(#"{"transactionId":"1","expiresDate":null}"#.utf8))
        #expect(payload.purchaseDate == nil)
        #expect(payload.expiresDate == nil)
        #expect(String(decoding: try JSONEncoder().encode(payload), as: UTF8.self) == #"{"transactionId":"1"}"#)
    }

    @Test func nonNumericDateIsADecodingErrorNotACrash() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                JWSTransactionDecodedPayload.self, from: Data(#"{"purchaseDate":"yesterday"}"#.utf8))
        }
    }
}

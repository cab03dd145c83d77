import AppStoreModels
import Foundation
import Testing

/// Advanced Commerce bodies decode as Apple's tests expect; in-app requests always carry their
/// constant `operation` and `version`.
@Suite struct AdvancedCommerceModelTests {
    private func encodedTree(_ value: some Encodable) throws -> [String: Any] {
        try #require(try ModelFixtures.tree(try JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func subscriptionCreateRequestDecodesAndEncodesItsOperation() throws {
        let request = try ModelFixtures.decode(
            AdvancedCommerceSubscriptionCreateRequest.self, from: "advancedCommerceSubscriptionCreateRequest")
        #expect(request.currency == "USD")
        #expect(
            request.descriptors == AdvancedCommerceDescriptors(description: "description", displayName: "display name"))
        #expect(request.items.map(\.price) == [20000, 30000])
        #expect(request.items.first?.sku == "sku")
        #expect(request.period == .p1M)
        #expect(request.requestInfo.requestReferenceId == "550e8400-e29b-41d4-a716-446655440001")
        #expect(request.taxCode == "taxCode")
        #expect(request.storefront == "USA")
        #expect(request.previousTransactionId == "transactionId")
        let tree = try encodedTree(request)
        #expect(tree["operation"] as? String == "CREATE_SUBSCRIPTION")
        #expect(tree["version"] as? String == "1")
    }

    @Test func everyInAppRequestNamesItsOperation() throws {
        let info = AdvancedCommerceRequestInfo(requestReferenceId: "550e8400-e29b-41d4-a716-446655440000")
        let requests: [(any AdvancedCommerceInAppRequest, String)] = [
            (
                AdvancedCommerceSubscriptionCreateRequest(
                    currency: "USD", descriptors: AdvancedCommerceDescriptors(description: "d", displayName: "n"),
                    items: [
                        AdvancedCommerceSubscriptionCreateItem(description: "d", displayName: "n", price: 1, sku: "s")
                    ],
                    period: .p1Y, requestInfo: info, taxCode: "t"), "CREATE_SUBSCRIPTION"
            ),
            (
                AdvancedCommerceOneTimeChargeCreateRequest(
                    currency: "USD",
                    item: AdvancedCommerceOneTimeChargeItem(description: "d", displayName: "n", sku: "s", price: 1),
                    requestInfo: info, taxCode: "t"), "CREATE_ONE_TIME_CHARGE"
            ),
            (
                AdvancedCommerceSubscriptionModifyInAppRequest(
                    requestInfo: info, retainBillingCycle: true, transactionId: "1"),
                "MODIFY_SUBSCRIPTION"
            ),
            (
                AdvancedCommerceSubscriptionReactivateInAppRequest(requestInfo: info, transactionId: "1"),
                "REACTIVATE_SUBSCRIPTION"
            ),
        ]
        for (request, operation) in requests {
            #expect(request.operation == operation)
            #expect(request.version == "1")
            let tree = try encodedTree(request)
            #expect(tree["operation"] as? String == operation)
            #expect(tree["version"] as? String == "1")
            #expect(
                tree["requestInfo"] as? [String: String] == [
                    "requestReferenceId": "550e8400-e29b-41d4-a716-446655440000"
                ])
        }
    }

    @Test func modifyRequestItemsDecode() throws {
        let change = try ModelFixtures.decode(
            AdvancedCommerceSubscriptionModifyChangeItem.self, from: "advancedCommerceSubscriptionModifyChangeItem")
        #expect(
            change
                == AdvancedCommerceSubscriptionModifyChangeItem(
                    currentSku: "currentSku", description: "description", displayName: "displayName",
                    effective: .immediately,
                    price: 13000, reason: .upgrade, sku: "sku"))
        let period = try ModelFixtures.decode(
            AdvancedCommerceSubscriptionModifyPeriodChange.self, from: "advancedCommerceSubscriptionModifyPeriodChange")
        #expect(period == AdvancedCommerceSubscriptionModifyPeriodChange(effective: .immediately, period: .p3M))
        let offer = try ModelFixtures.decode(AdvancedCommerceOffer.self, from: "advancedCommerceOffer")
        #expect(offer == AdvancedCommerceOffer(period: .p1W, periodCount: 3, price: 5000, reason: .winBack))
    }

    @Test func refundAndRevokeRequestsDecode() throws {
        let refund = try ModelFixtures.decode(
            AdvancedCommerceRequestRefundRequest.self, from: "advancedCommerceRequestRefundRequest")
        #expect(refund.items.map(\.refundReason) == [.legal, .other])
        #expect(refund.items.map(\.refundType) == [.full, .prorated])
        #expect(refund.items.map(\.revoke) == [true, false])
        #expect(refund.refundRiskingPreference)
        let item = try ModelFixtures.decode(
            AdvancedCommerceRequestRefundItem.self, from: "advancedCommerceRequestRefundItem")
        #expect(item.refundAmount == 5000)
        let revoke = try ModelFixtures.decode(
            AdvancedCommerceSubscriptionRevokeRequest.self, from: "advancedCommerceSubscriptionRevokeRequest")
        #expect(revoke.refundReason == .legal)
        #expect(revoke.refundType == .full)
        let response = try ModelFixtures.decode(
            AdvancedCommerceRequestRefundResponse.self, from: "advancedCommerceRequestRefundResponse")
        #expect(response.signedTransactionInfo == "signed_transaction_info_value")
        #expect(response.signedRenewalInfo == nil)
    }

    @Test func requestInfoKeepsTokensAsStrings() throws {
        let info = try ModelFixtures.decode(AdvancedCommerceRequestInfo.self, from: "advancedCommerceRequestInfo")
        #expect(
            info
                == AdvancedCommerceRequestInfo(
                    requestReferenceId: "550e8400-e29b-41d4-a716-446655440010",
                    appAccountToken: "660e8400-e29b-41d4-a716-446655440011", consistencyToken: "consistency_token_value"
                ))
    }

    @Test func missingRequiredRequestFieldIsADecodingError() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                AdvancedCommerceSubscriptionCancelRequest.self, from: Data(#"{"storefront":"USA"}"#.utf8))
        }
    }
}

import AppStoreModels
import Foundation
import Testing

/// The signed-payload fixtures decode to the values Apple's own tests expect.
@Suite struct SignedPayloadDecodingTests {
    private func date(_ milliseconds: Int64) -> Date { Date(appStoreMilliseconds: milliseconds) }

    @Test func signedTransactionDecodesEveryDocumentedField() throws {
        let transaction = try ModelFixtures.decode(JWSTransactionDecodedPayload.self, from: "signedTransaction")
        #expect(transaction.originalTransactionId == "12345")
        #expect(transaction.transactionId == "23456")
        #expect(transaction.webOrderLineItemId == "34343")
        #expect(transaction.bundleId == "com.example")
        #expect(transaction.productId == "com.example.product")
        #expect(transaction.subscriptionGroupIdentifier == "55555")
        #expect(transaction.originalPurchaseDate == date(1_698_148_800_000))
        #expect(transaction.purchaseDate == date(1_698_148_900_000))
        #expect(transaction.revocationDate == date(1_698_148_950_000))
        #expect(transaction.expiresDate == date(1_698_149_000_000))
        #expect(transaction.quantity == 1)
        #expect(transaction.type == .autoRenewableSubscription)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.inAppOwnershipType == .purchased)
        #expect(transaction.signedDate == date(1_698_148_900_000))
        #expect(transaction.revocationReason == .refundedDueToIssue)
        #expect(transaction.offerIdentifier == "abc.123")
        #expect(transaction.isUpgraded == true)
        #expect(transaction.offerType == .introductoryOffer)
        #expect(transaction.storefront == "USA")
        #expect(transaction.storefrontId == "143441")
        #expect(transaction.transactionReason == .purchase)
        #expect(transaction.environment == .localTesting)
        #expect(transaction.price == 10990)
        #expect(transaction.currency == "USD")
        #expect(transaction.offerDiscountType == .payAsYouGo)
        #expect(transaction.appTransactionId == "71134")
        #expect(transaction.offerPeriod == "P1Y")
        #expect(transaction.revocationType == nil)
        #expect(transaction.revocationPercentage == nil)
        #expect(transaction.billingPlanType == .monthly)
        #expect(
            transaction.commitmentInfo
                == TransactionCommitmentInfo(
                    billingPeriodNumber: 3, commitmentExpiresDate: date(1_698_150_000_000),
                    commitmentPrice: 119_880, totalBillingPeriods: 12))

        let commerce = try #require(transaction.advancedCommerceInfo)
        #expect(
            commerce.descriptors == AdvancedCommerceDescriptors(description: "Premium Plan", displayName: "Premium"))
        #expect(commerce.estimatedTax == 1500)
        #expect(commerce.period == .p1M)
        #expect(commerce.requestReferenceId == "ref-12345")
        #expect(commerce.taxCode == "TAX_CODE_1")
        #expect(commerce.taxExclusivePrice == 8490)
        #expect(commerce.taxRate == "0.15")
        let item = try #require(commerce.items?.first)
        #expect(item.sku == "com.example.sku.premium")
        #expect(item.description == "Premium feature")
        #expect(item.displayName == "Premium Feature")
        #expect(item.price == 9990)
        #expect(item.revocationDate == date(1_698_149_200_000))
        #expect(
            item.refunds == [
                AdvancedCommerceRefund(
                    refundAmount: 5000, refundDate: date(1_698_149_100_000), refundReason: .fulfillmentIssue,
                    refundType: .prorated)
            ])
    }

    @Test func revokedTransactionCarriesTypeAndPercentageInMilliunits() throws {
        let transaction = try ModelFixtures.decode(
            JWSTransactionDecodedPayload.self, from: "signedTransactionWithRevocation")
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50_000)
        #expect(transaction.transactionId == "23456")
    }

    @Test func signedRenewalInfoDecodesEveryDocumentedField() throws {
        let renewal = try ModelFixtures.decode(JWSRenewalInfoDecodedPayload.self, from: "signedRenewalInfo")
        #expect(renewal.expirationIntent == .customerCancelled)
        #expect(renewal.originalTransactionId == "12345")
        #expect(renewal.autoRenewProductId == "com.example.product.2")
        #expect(renewal.productId == "com.example.product")
        #expect(renewal.autoRenewStatus == .on)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.priceIncreaseStatus == .customerHasNotResponded)
        #expect(renewal.gracePeriodExpiresDate == date(1_698_148_900_000))
        #expect(renewal.offerType == .promotionalOffer)
        #expect(renewal.offerIdentifier == "abc.123")
        #expect(renewal.signedDate == date(1_698_148_800_000))
        #expect(renewal.environment == .localTesting)
        #expect(renewal.recentSubscriptionStartDate == date(1_698_148_800_000))
        #expect(renewal.renewalDate == date(1_698_148_850_000))
        #expect(renewal.renewalPrice == 9990)
        #expect(renewal.currency == "USD")
        #expect(renewal.offerDiscountType == .payAsYouGo)
        #expect(renewal.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
        #expect(renewal.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(renewal.appTransactionId == "71134")
        #expect(renewal.offerPeriod == "P1Y")
        #expect(renewal.renewalBillingPlanType == .monthly)
        #expect(
            renewal.commitmentInfo
                == RenewalCommitmentInfo(
                    commitmentAutoRenewProductId: "com.example.product.commitment", commitmentAutoRenewStatus: .on,
                    commitmentRenewalBillingPlanType: .monthly, commitmentRenewalDate: date(1_698_149_500_000),
                    commitmentRenewalPrice: 9990))

        let commerce = try #require(renewal.advancedCommerceInfo)
        #expect(commerce.consistencyToken == "token-abc-123")
        #expect(commerce.period == .p1M)
        let item = try #require(commerce.items?.first)
        #expect(item.sku == "com.example.sku.premium")
        #expect(
            item.priceIncreaseInfo
                == AdvancedCommercePriceIncreaseInfo(
                    dependentSKUs: ["com.example.sku.1", "com.example.sku.2"], price: 12990, status: .pending))
    }

    @Test func appTransactionDecodesEveryDocumentedField() throws {
        let app = try ModelFixtures.decode(AppTransaction.self, from: "appTransaction")
        #expect(
            app
                == AppTransaction(
                    receiptType: .localTesting, appAppleId: 531_412, bundleId: "com.example",
                    applicationVersion: "1.2.3",
                    versionExternalIdentifier: 512, receiptCreationDate: date(1_698_148_900_000),
                    originalPurchaseDate: date(1_698_148_800_000), originalApplicationVersion: "1.1.2",
                    deviceVerification: "device_verification_value",
                    deviceVerificationNonce: "48ccfa42-7431-4f22-9908-7e88983e105a",
                    preorderDate: date(1_698_148_700_000),
                    appTransactionId: "71134", originalPlatform: .iOS))
    }

    @Test func realtimeRequestDecodesEveryDocumentedField() throws {
        let request = try ModelFixtures.decode(DecodedRealtimeRequestBody.self, from: "decodedRealtimeRequest")
        #expect(
            request
                == DecodedRealtimeRequestBody(
                    originalTransactionId: "99371282", appAppleId: 531_412, productId: "com.example.product",
                    userLocale: "en-US", requestIdentifier: "3db5c98d-8acf-4e29-831e-8e1f82f9f6e9",
                    signedDate: date(1_698_148_900_000), environment: .localTesting))
    }

    @Test func malformedAppAccountTokenStillDecodesTheTransaction() throws {
        let json = #"{"transactionId":"1","appAccountToken":"not-a-uuid","purchaseDate":1698148900000}"#
        let transaction = try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
        #expect(transaction.appAccountToken == "not-a-uuid")
        #expect(transaction.transactionId == "1")
    }

    @Test func signatureDateIsSignedDateOrReceiptCreationDate() throws {
        let signed = Date(appStoreMilliseconds: Int64(1_698_148_900_000))
        #expect(JWSTransactionDecodedPayload(signedDate: signed).signatureDate == signed)
        #expect(JWSRenewalInfoDecodedPayload(signedDate: signed).signatureDate == signed)
        #expect(ResponseBodyV2DecodedPayload(signedDate: signed).signatureDate == signed)
        #expect(DecodedRealtimeRequestBody(signedDate: signed).signatureDate == signed)
        #expect(AppTransaction(receiptCreationDate: signed).signatureDate == signed)
        #expect(AppTransaction().signatureDate == nil)
    }
}

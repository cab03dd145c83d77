import AppStoreModels
import Foundation

extension ConsumptionRequest {
    /// Apple's refusal of this answer, if any: consent is required and values must be known.
    var simulatorRefusal: SimulatorAPIError? {
        guard customerConsented else {
            return SimulatorAPIError(.invalidCustomerConsented, "Invalid request. The customer consented field is invalid.")
        }
        guard deliveryStatus.isKnown else {
            return SimulatorAPIError(.invalidDeliveryStatus, "Invalid request. The delivery status field is invalid.")
        }
        if let consumptionPercentage, !(0...100_000).contains(consumptionPercentage) {
            return SimulatorAPIError(.generalBadRequest, "Invalid request. The consumption percentage is invalid.")
        }
        if let refundPreference, !refundPreference.isKnown {
            return SimulatorAPIError(.generalBadRequest, "Invalid request. The refund preference is invalid.")
        }
        return nil
    }

    /// The version 2 answer equivalent to a version 1 answer (for the store, which keeps v2).
    init(_ v1: ConsumptionRequestV1) {
        let delivery: DeliveryStatus =
            switch v1.deliveryStatus {
            case .deliveredAndWorkingProperly?, nil: .delivered
            case .didNotDeliverDueToQualityIssue?: .undeliveredQualityIssue
            case .deliveredWrongItem?: .undeliveredWrongItem
            case .didNotDeliverDueToServerOutage?: .undeliveredServerOutage
            default: .undeliveredOther
            }
        let percentage: Int32? =
            switch v1.consumptionStatus {
            case .notConsumed?: 0
            case .partiallyConsumed?: 50_000
            case .fullyConsumed?: 100_000
            default: nil
            }
        let preference: RefundPreference? =
            switch v1.refundPreference {
            case .preferGrant?: .grantFull
            case .preferDecline?: .decline
            default: nil
            }
        self.init(
            customerConsented: v1.customerConsented ?? false, consumptionPercentage: percentage, deliveryStatus: delivery,
            refundPreference: preference, sampleContentProvided: v1.sampleContentProvided ?? false)
    }
}

extension ConsumptionRequestV1 {
    /// Apple's refusal of this answer, if any: consent is required, every field's value must be
    /// one Apple documents.
    var simulatorRefusal: SimulatorAPIError? {
        func known<Value: AppStoreOpenValue>(_ value: Value?) -> Bool { value.map(\.isKnown) ?? true }
        guard customerConsented == true else {
            return SimulatorAPIError(.invalidCustomerConsented, "Invalid request. The customer consented field is invalid.")
        }
        guard known(consumptionStatus) else {
            return SimulatorAPIError(.invalidConsumptionStatus, "Invalid request. The consumption status is invalid.")
        }
        guard known(platform) else { return SimulatorAPIError(.invalidPlatform, "Invalid request. The platform is invalid.") }
        guard known(deliveryStatus) else { return SimulatorAPIError(.invalidDeliveryStatus, "Invalid request. The delivery status is invalid.") }
        guard known(accountTenure) else { return SimulatorAPIError(.invalidAccountTenure, "Invalid request. The account tenure is invalid.") }
        guard known(playTime) else { return SimulatorAPIError(.invalidPlayTime, "Invalid request. The play time is invalid.") }
        guard known(lifetimeDollarsRefunded) else {
            return SimulatorAPIError(.invalidLifetimeDollarsRefunded, "Invalid request. The lifetime dollars refunded is invalid.")
        }
        guard known(lifetimeDollarsPurchased) else {
            return SimulatorAPIError(.invalidLifetimeDollarsPurchased, "Invalid request. The lifetime dollars purchased is invalid.")
        }
        guard known(userStatus) else { return SimulatorAPIError(.invalidUserStatus, "Invalid request. The user status is invalid.") }
        guard known(refundPreference) else { return SimulatorAPIError(.generalBadRequest, "Invalid request. The refund preference is invalid.") }
        guard appAccountToken.isEmpty || UUID(uuidString: appAccountToken) != nil else {
            return SimulatorAPIError(.invalidAppAccountToken, "Invalid request. The app account token is invalid.")
        }
        return nil
    }
}

import AppStoreModels

extension NotificationV1Builder {
    /// The V1 `notification_type` Apple sends for a V2 type and subtype, or `nil` when V1 has no
    /// such event.
    ///
    /// Follows Apple's V1 reference and its V1-to-V2 migration guide:
    ///
    /// | V2 type / subtype | V1 type |
    /// |---|---|
    /// | SUBSCRIBED / INITIAL_BUY | INITIAL_BUY |
    /// | SUBSCRIBED / RESUBSCRIBE | INTERACTIVE_RENEWAL |
    /// | OFFER_REDEEMED / INITIAL_BUY, RESUBSCRIBE, UPGRADE, DOWNGRADE | as the same purchase without an offer |
    /// | DID_RENEW | DID_RENEW |
    /// | DID_RENEW / BILLING_RECOVERY | DID_RECOVER |
    /// | DID_FAIL_TO_RENEW (any) | DID_FAIL_TO_RENEW |
    /// | DID_CHANGE_RENEWAL_STATUS (any) | DID_CHANGE_RENEWAL_STATUS |
    /// | DID_CHANGE_RENEWAL_PREF / UPGRADE | INTERACTIVE_RENEWAL (the upgrade is a purchase) |
    /// | DID_CHANGE_RENEWAL_PREF / DOWNGRADE or none | DID_CHANGE_RENEWAL_PREF |
    /// | PRICE_INCREASE / PENDING | PRICE_INCREASE_CONSENT |
    /// | REFUND, REVOKE, CONSUMPTION_REQUEST | the same name |
    ///
    /// Apple documents PRICE_INCREASE_CONSENT as sent when the App Store *starts asking* for
    /// consent (`price_consent_status` 0); V1 says nothing when the customer agrees, so
    /// PRICE_INCREASE / ACCEPTED has no V1 body. Nor do EXPIRED (V1 never announced a plain
    /// expiry), GRACE_PERIOD_EXPIRED, REFUND_DECLINED, REFUND_REVERSED, RENEWAL_EXTENDED,
    /// RENEWAL_EXTENSION, ONE_TIME_CHARGE, TEST, a promotional OFFER_REDEEMED without subtype,
    /// and the newer types.
    public static func notificationType(for type: NotificationTypeV2, subtype: Subtype?) -> NotificationTypeV1? {
        switch type {
        case .subscribed, .offerRedeemed:
            switch subtype {
            case .initialBuy?: return .initialBuy
            case .resubscribe?: return .interactiveRenewal
            case .upgrade? where type == .offerRedeemed: return .interactiveRenewal
            case .downgrade? where type == .offerRedeemed: return .didChangeRenewalPref
            default: return nil
            }
        case .didRenew:
            return subtype == .billingRecovery ? .didRecover : .didRenew
        case .didFailToRenew:
            return .didFailToRenew
        case .didChangeRenewalStatus:
            return .didChangeRenewalStatus
        case .didChangeRenewalPref:
            return subtype == .upgrade ? .interactiveRenewal : .didChangeRenewalPref
        case .priceIncrease:
            return subtype == .pending ? .priceIncreaseConsent : nil
        case .refund:
            return .refund
        case .revoke:
            return .revoke
        case .consumptionRequest:
            return .consumptionRequest
        default:
            return nil
        }
    }
}

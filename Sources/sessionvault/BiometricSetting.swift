import ArgumentParser

/// `enable` or `disable`, for `sessionvault biometric`.
enum BiometricSetting: String, ExpressibleByArgument, CaseIterable {
    case enable
    case disable

    var isEnabled: Bool { self == .enable }
}

//! Choices that scenes and the command line give by name. [`named_enum!`] writes such an enum from one
//! list of variants and names: its [`Named`] impl, and serde as the name (`summary.json`, scene tables).

/// A value given by name.
pub trait Named: Sized + Copy + 'static {
    /// Every value, in the order error messages list their names.
    fn all() -> Vec<Self>;

    fn name(self) -> &'static str;

    fn from_name(name: &str) -> Option<Self> {
        Self::all().into_iter().find(|v| v.name() == name)
    }

    /// Every name, in the order of [`Named::all`].
    fn names() -> Vec<&'static str> {
        Self::all().into_iter().map(Self::name).collect()
    }
}

/// Serialises a [`Named`] value as its name.
pub fn serialize_name<T: Named, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(v.name())
}

/// A fieldless enum whose variants are given by the names after `=`, with [`Named`], `Serialize` and
/// `Deserialize` by name.
macro_rules! named_enum {
    ($(#[$meta:meta])* $vis:vis enum $Enum:ident { $($(#[$vmeta:meta])* $Variant:ident = $name:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $Enum {
            $($(#[$vmeta])* $Variant,)+
        }

        impl $crate::named::Named for $Enum {
            fn all() -> Vec<Self> {
                vec![$(Self::$Variant),+]
            }

            fn name(self) -> &'static str {
                match self {
                    $(Self::$Variant => $name,)+
                }
            }
        }

        impl serde::Serialize for $Enum {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::named::serialize_name(self, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $Enum {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                use $crate::named::Named;
                let name = <String as serde::Deserialize>::deserialize(d)?;
                Self::from_name(&name).ok_or_else(|| serde::de::Error::unknown_variant(&name, &[$($name),+]))
            }
        }
    };
}

#[cfg(test)]
pub(crate) mod tests {
    use super::Named;

    /// Every value serialises as its name, which parses back to it; an unknown name parses to nothing.
    pub(crate) fn round_trips<T: Named + serde::Serialize + std::fmt::Debug + PartialEq>() {
        for v in T::all() {
            assert_eq!(toml::Value::try_from(v).unwrap(), toml::Value::from(v.name()), "{v:?}");
            assert_eq!(T::from_name(v.name()), Some(v));
        }
        assert_eq!(T::from_name("no-such-name"), None);
    }
}

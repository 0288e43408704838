//! A checked WGS84 position: what shop forms and nearby search both parse coordinates into.

use serde::{Deserialize, Serialize};

use crate::shared::error::AppError;
use crate::shared::i18n::{locale, td_string};

/// Redis GEO accepts latitudes within ±85.05112878° (the Web Mercator limit).
pub const MAX_LAT: f64 = 85.051_128_78;

/// A position Redis GEO can store.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GeoPoint {
    /// Longitude, degrees east.
    pub lon: f64,
    /// Latitude, degrees north.
    pub lat: f64,
}

impl GeoPoint {
    /// The point, if Redis GEO could store it (for a position already read as numbers).
    pub fn checked(self) -> Option<Self> {
        let lon_ok = self.lon.is_finite() && (-180.0..=180.0).contains(&self.lon);
        let lat_ok = self.lat.is_finite() && (-MAX_LAT..=MAX_LAT).contains(&self.lat);
        (lon_ok && lat_ok).then_some(self)
    }

    /// Parses longitude and latitude from the form fields `lon` and `lat`.
    pub fn parse(lon: &str, lat: &str) -> Result<Self, AppError> {
        Self::parse_fields(("lon", lon), ("lat", lat))
    }

    /// Parses longitude and latitude, refusing anything Redis GEO could not store; a problem is reported
    /// against the field name given with the value.
    pub fn parse_fields((lon_field, lon): (&str, &str), (lat_field, lat): (&str, &str)) -> Result<Self, AppError> {
        let lon: f64 = lon
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && (-180.0..=180.0).contains(v))
            .ok_or_else(|| AppError::invalid(lon_field, td_string!(locale(), common.err_longitude)))?;
        let lat: f64 = lat
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && (-MAX_LAT..=MAX_LAT).contains(v))
            .ok_or_else(|| AppError::invalid(lat_field, td_string!(locale(), common.err_latitude)))?;
        Ok(Self { lon, lat })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_checked_against_their_fields() {
        assert_eq!(GeoPoint::parse("120.16", " 30.25 ").unwrap(), GeoPoint { lon: 120.16, lat: 30.25 });
        for (lon, lat, field) in [("181", "30", "lon"), ("NaN", "30", "lon"), ("120", "86", "lat"), ("120", "", "lat")]
        {
            assert!(GeoPoint::parse(lon, lat).unwrap_err().field_message(field).is_some(), "{lon},{lat}");
        }
        assert_eq!(GeoPoint { lon: 120.16, lat: 30.25 }.checked(), Some(GeoPoint { lon: 120.16, lat: 30.25 }));
        assert_eq!(GeoPoint { lon: f64::NAN, lat: 30.0 }.checked(), None);
        assert_eq!(GeoPoint { lon: 120.0, lat: 86.0 }.checked(), None);
        let e = GeoPoint::parse_fields(("longitude", "200"), ("latitude", "30")).unwrap_err();
        assert!(e.field_message("longitude").is_some());
    }
}

import RE2 from 're2';

/**
 * The `format` values a foreign schema may use, each checked in linear time: regular
 * expressions run on RE2, the rest is plain string scanning. Any other format makes the
 * schema fail the guard, so no format validator with a backtracking regex ever sees input.
 */

const dateShape = new RE2('^([0-9]{4})-([0-9]{2})-([0-9]{2})$');
const timeShape = new RE2(
  '^([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\.[0-9]+)?(?:[zZ]|[+-]([0-9]{2}):([0-9]{2}))$',
);
const uuidShape = new RE2('^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$');
const ipv4Octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const ipv4Shape = new RE2(`^(?:${ipv4Octet}\\.){3}${ipv4Octet}$`);
const ipv6Group = new RE2('^[0-9a-fA-F]{1,4}$');
const hostnameLabel = new RE2('^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$');
const emailLocalPart = new RE2(
  "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$",
);
const uriScheme = new RE2('^[A-Za-z][A-Za-z0-9+.-]*:');
// Whitespace, controls and the characters RFC 3986 never allows unescaped; "%" must start a
// two-hex-digit escape.
const uriForbidden = new RE2('[\\x00-\\x20\\x7f<>"{}|\\\\^`]|%(?:[^0-9a-fA-F]|.[^0-9a-fA-F]|.?$)');

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isDate(value: string): boolean {
  const match = dateShape.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** RFC 3339 full-time: the offset is required; second 60 is allowed for a leap second. */
function isTime(value: string): boolean {
  const match = timeShape.exec(value);
  if (!match) return false;
  const [hour, minute, second] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const offsetHour = Number(match[4] ?? 0);
  const offsetMinute = Number(match[5] ?? 0);
  return hour <= 23 && minute <= 59 && second <= 60 && offsetHour <= 23 && offsetMinute <= 59;
}

function isDateTime(value: string): boolean {
  const separator = value.charAt(10);
  if (separator !== 'T' && separator !== 't' && separator !== ' ') return false;
  return isDate(value.slice(0, 10)) && isTime(value.slice(11));
}

function isIpv4(value: string): boolean {
  return ipv4Shape.test(value);
}

/** Eight 16-bit groups, one `::` standing for a run of zero groups, an IPv4 tail allowed. */
function isIpv6(value: string): boolean {
  if (value.length > 45) return false;
  const halves = value.split('::');
  if (halves.length > 2) return false;
  let groups = 0;
  for (const [h, half] of halves.entries()) {
    if (half === '') continue;
    const parts = half.split(':');
    for (const [p, part] of parts.entries()) {
      const last = h === halves.length - 1 && p === parts.length - 1;
      if (last && part.includes('.')) {
        if (!isIpv4(part)) return false;
        groups += 2;
      } else if (ipv6Group.test(part)) {
        groups += 1;
      } else {
        return false;
      }
    }
  }
  return halves.length === 2 ? groups <= 7 : groups === 8;
}

/** RFC 1123 host names: dot-separated labels of letters, digits and inner hyphens. */
function isHostname(value: string): boolean {
  if (value.length === 0 || value.length > 253) return false;
  return value.split('.').every((label) => hostnameLabel.test(label));
}

/** A dot-atom local part at a host name; quoted local parts and address literals are refused. */
function isEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at < 1 || at > 64) return false;
  return emailLocalPart.test(value.slice(0, at)) && isHostname(value.slice(at + 1));
}

function isUriReference(value: string): boolean {
  return !uriForbidden.test(value);
}

function isUri(value: string): boolean {
  return uriScheme.test(value) && isUriReference(value);
}

export const safeFormats: ReadonlyMap<string, (value: string) => boolean> = new Map([
  ['date', isDate],
  ['time', isTime],
  ['date-time', isDateTime],
  ['uuid', (value: string) => uuidShape.test(value)],
  ['ipv4', isIpv4],
  ['ipv6', isIpv6],
  ['hostname', isHostname],
  ['email', isEmail],
  ['uri', isUri],
  ['uri-reference', isUriReference],
]);

//! The text form of the IR: parsing and canonical printing.
//!
//! [`parse`] reads a module and checks its syntax, names and attributes (types are
//! the verifier's business); [`parse_with_spans`] also returns a [`SourceMap`] that
//! maps a Func and equation index back to a line and column. [`print()`] writes the
//! canonical form, in which values are renumbered `%0..` in definition order and
//! floats are shortest round-trip, so `print(parse(print(m)))` equals `print(m)`.
//!
//! The same text is what [`Module`] and [`Func`] display and parse through the standard
//! traits: `m.to_string()` is `print(&m)`, `format!("{m:#}")` adds the source
//! locations, and `text.parse::<Module>()` is `parse(text)` (a `Func` parses from the
//! text of a module holding exactly one Func).

mod lexer;
mod parser;
mod printer;

pub use parser::{MAX_NESTING, SourceMap, parse, parse_with_spans};
pub use printer::{PrintOptions, print, print_func, print_with};

use crate::{Error, Func, Module};
use std::fmt;
use std::str::FromStr;

/// The canonical text ([`print()`]); the alternate form `{:#}` adds source locations.
impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_with(self, &PrintOptions { locs: f.alternate() }))
    }
}

/// The canonical text of one Func ([`print_func`]); `{:#}` adds source locations.
impl fmt::Display for Func {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_func(self, &PrintOptions { locs: f.alternate() }))
    }
}

/// [`parse`]: syntax, names and attributes are checked; types are the verifier's.
impl FromStr for Module {
    type Err = Error;

    fn from_str(text: &str) -> Result<Module, Error> {
        parse(text)
    }
}

/// The one Func of a module's text; a text with no Func or several is an error.
impl FromStr for Func {
    type Err = Error;

    fn from_str(text: &str) -> Result<Func, Error> {
        let module = parse(text)?;
        let count = module.funcs.len();
        match module.funcs.into_values().next() {
            Some(func) if count == 1 => Ok(func),
            _ => Err(Error::Parse { line: 1, col: 1, message: format!("expected exactly one func, found {count}") }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_and_funcs_display_and_parse_through_the_standard_traits() {
        let text = "func @main(%0: f32[2]) -> (f32[2]) {\n  %1: f32[2] = neg(%0) loc(\"m.rs:3:9\")\n  return %1\n}\n";
        let module: Module = text.parse().unwrap();
        assert_eq!(format!("{module:#}"), text);
        assert_eq!(module.to_string(), print(&module));
        assert!(!module.to_string().contains("loc("));
        let func: Func = text.parse().unwrap();
        assert_eq!(format!("{func:#}"), text);
        assert_eq!(func.to_string(), module.to_string());
        let two = format!("{text}\n{}", text.replace("@main", "@g"));
        let err = two.parse::<Func>().unwrap_err();
        assert_eq!(err.to_string(), "1:1: expected exactly one func, found 2");
        let err = "func @main(".parse::<Module>().unwrap_err();
        assert!(matches!(err, Error::Parse { line: 1, .. }), "{err}");
    }
    use crate::prim::ShapeOp;
    use crate::{Array, AttrValue, Eqn, Error, Func, Module, Prim, Type};
    use ferrax_array::{DType, Data};
    use smallvec::smallvec;

    /// A module in canonical form that uses every kind of attribute value, every
    /// structured primitive, Func attributes, escapes and multi-result equations.
    const CANONICAL: &str = r#"func @main[kind="entry", residuals=2, scale=1.5, tiny=-2e-7, flag=true, bound=none, dt=f64, ref=@sub, note="say \"hi\" \\ there\nnext", nested=[[1,-2],[],[@sub,-inf,nan,inf,"s"]]](%0: f32[2,3], %1: i32[], %2: bool[]) -> (f32[2,3], f32[], i32[]) {
  %3: f32[2,3] = neg(%0)
  %4: f32[] = reduce_sum[axes=[0,1]](%3)
  %5: f32[2,3] = call[func=@sub](%3)
  %6: f32[2,3] = cond[branches=[@sub,@sub2]](%1, %5)
  %7: f32[2,3], %8: i32[] = while[cond=@wc, body=@wb, max_iters=10](%6, %1)
  %9: f32[2,3], %10: i32[] = while[cond=@wc, body=@wb, max_iters=none](%7, %8)
  %11: f32[2,3] = custom_vjp[func=@sub, fwd=@fwd, bwd=@bwd](%9)
  %12: f32[2,3] = custom_jvp[func=@sub, jvp=@jvp](%11)
  %13: f32[2,3] = remat[func=@sub, policy="names:a,b"](%12)
  %14: f32[2,3] = name[name="tag \"t\" \\"](%13)
  %15: f64[2,3] = convert[dtype=f64](%14)
  %16: i32[2,3] = iota[dtype=i32, shape=[2,3], dim=1]()
  %17: f32[3] = constant[value=[1.5,-0.0,1e-45]]()
  %18: f64[] = constant[value=5e-324]()
  %19: i32[2] = constant[value=[7,-8]]()
  %20: bool[2,3] = constant[value=true]()
  %21: i32[] = argmax[axis=0, index_dtype=i32](%17)
  %22: f32[2,2] = dot_general[lhs_contract=[1], rhs_contract=[1], lhs_batch=[], rhs_batch=[], preferred=none](%14, %14)
  %23: f32[2,3] = integer_pow[y=-3](%14)
  %24: f32[2,3] = cumsum[axis=1, reverse=true](%23)
  %25: f32[4,3] = pad[low=[-1,0], high=[3,0], interior=[0,0]](%24, %4)
  %26: f32[], %27: f32[2] = scan[body=@scan_body, length=2, num_consts=0, num_carry=1, reverse=false, checkpoint=4](%4, %0)
  %28: f32[2,3] = select(%20, %14, %3)
  %29: f32[1,3] = slice[start=[0,0], limit=[1,3], strides=[1,1]](%28)
  return %28, %26, %21
}

func @sub(%0: f32[2,3]) -> (f32[2,3]) {
  %1: f32[2,3] = sin(%0)
  return %1
}

func @sub2(%0: f32[2,3]) -> (f32[2,3]) {
  return %0
}

func @wc(%0: f32[2,3], %1: i32[]) -> (bool[]) {
  %2: i32[] = constant[value=3]()
  %3: bool[] = lt(%1, %2)
  return %3
}

func @wb(%0: f32[2,3], %1: i32[]) -> (f32[2,3], i32[]) {
  %2: i32[] = constant[value=1]()
  %3: i32[] = add(%1, %2)
  return %0, %3
}

func @fwd[kind="fwd"](%0: f32[2,3]) -> (f32[2,3], f32[2,3]) {
  %1: f32[2,3] = sin(%0)
  %2: f32[2,3] = cos(%0)
  return %1, %2
}

func @bwd[residuals=1](%0: f32[2,3], %1: f32[2,3]) -> (f32[2,3]) {
  %2: f32[2,3] = mul(%0, %1)
  return %2
}

func @jvp(%0: f32[2,3], %1: f32[2,3]) -> (f32[2,3], f32[2,3]) {
  %2: f32[2,3] = sin(%0)
  %3: f32[2,3] = cos(%0)
  %4: f32[2,3] = mul(%3, %1)
  return %2, %4
}

func @scan_body(%0: f32[], %1: f32[3]) -> (f32[], f32[]) {
  %2: f32[] = reduce_sum[axes=[0]](%1)
  %3: f32[] = add(%0, %2)
  return %3, %2
}

func @empty() -> () {
  return
}
"#;

    /// The same kind of program written by hand: named values, comments, locations,
    /// omitted defaults, odd spacing, an integer where a float is expected.
    const MESSY: &str = r#"
; a hand-written module
func @f[kind = "fusion",residuals=2] ( %x : f32[2] , %n: i32[ ] )->( f32[2], f32[] ) {
  %y: f32[2] = exp(%x) loc("src/model.rs:42:17")   ; trailing comment
  %s.1: f32[] = reduce_max[axes=[0]](%y) loc("a \"q\" \\ b")
  %c: f32[] = constant[value=2]()
  %d: f32[2,2] = dot_general[lhs_contract=[], rhs_contract=[]](%y, %y)
  %k: f32[2] = cumsum[axis=0](%y)
  %m: i32[] = argmin[axis=0](%k)
  %r: f32[2] = remat[func=@g](%k)
  %t: f32[], %u: f32[2] = scan[body=@g, length=2, num_carry=1](%c, %x)
  return %r, %s.1
}
func @g(%a: f32[2]) -> (f32[2]) { return %a }
"#;

    const MESSY_CANONICAL: &str = r#"func @f[kind="fusion", residuals=2](%0: f32[2], %1: i32[]) -> (f32[2], f32[]) {
  %2: f32[2] = exp(%0)
  %3: f32[] = reduce_max[axes=[0]](%2)
  %4: f32[] = constant[value=2.0]()
  %5: f32[2,2] = dot_general[lhs_contract=[], rhs_contract=[], lhs_batch=[], rhs_batch=[], preferred=none](%2, %2)
  %6: f32[2] = cumsum[axis=0, reverse=false](%2)
  %7: i32[] = argmin[axis=0, index_dtype=i32](%6)
  %8: f32[2] = remat[func=@g, policy="nothing"](%6)
  %9: f32[], %10: f32[2] = scan[body=@g, length=2, num_consts=0, num_carry=1, reverse=false, checkpoint=none](%4, %0)
  return %8, %3
}

func @g(%0: f32[2]) -> (f32[2]) {
  return %0
}
"#;

    fn round(text: &str) -> String {
        print(&parse(text).unwrap_or_else(|e| panic!("{e}\n{text}")))
    }

    #[test]
    fn canonical_text_prints_back_unchanged() {
        assert_eq!(round(CANONICAL), CANONICAL);
    }

    #[test]
    fn printing_is_canonical_and_drops_locs_by_default() {
        assert_eq!(round(MESSY), MESSY_CANONICAL);
    }

    #[test]
    fn printing_a_parsed_module_is_a_fixed_point() {
        for text in [CANONICAL, MESSY] {
            let once = round(text);
            assert_eq!(round(&once), once);
            let with_locs = print_with(&parse(text).unwrap(), &PrintOptions { locs: true });
            assert_eq!(print_with(&parse(&with_locs).unwrap(), &PrintOptions { locs: true }), with_locs);
        }
    }

    #[test]
    fn parse_of_print_gives_back_the_module() {
        let module = parse(MESSY).unwrap();
        let text = print_with(&module, &PrintOptions { locs: true });
        assert!(text.contains(r#"= exp(%0) loc("src/model.rs:42:17")"#), "{text}");
        assert!(text.contains(r#"(%2) loc("a \"q\" \\ b")"#), "{text}");
        assert_eq!(parse(&text).unwrap(), module);
        assert_eq!(parse(CANONICAL).unwrap(), parse(&round(CANONICAL)).unwrap());
    }

    #[test]
    fn attributes_decode_to_their_kinds() {
        let module = parse(CANONICAL).unwrap();
        let main = module.entry().unwrap();
        assert_eq!(main.attr("note"), Some(&AttrValue::Str("say \"hi\" \\ there\nnext".to_string())));
        assert_eq!(main.attr("tiny"), Some(&AttrValue::Float("-2e-7".to_string())));
        assert_eq!(main.attr("bound"), Some(&AttrValue::None));
        assert_eq!(main.attr("dt"), Some(&AttrValue::DType(DType::F64)));
        assert_eq!(main.attr("ref"), Some(&AttrValue::Func("sub".to_string())));
        let nested = AttrValue::List(vec![
            AttrValue::ints(&[1, -2]),
            AttrValue::List(vec![]),
            AttrValue::List(vec![
                AttrValue::Func("sub".to_string()),
                AttrValue::Float("-inf".to_string()),
                AttrValue::Float("nan".to_string()),
                AttrValue::Float("inf".to_string()),
                AttrValue::Str("s".to_string()),
            ]),
        ]);
        assert_eq!(main.attr("nested"), Some(&nested));
        assert_eq!(module.func("bwd").unwrap().attr("residuals"), Some(&AttrValue::Int(1)));
        assert_eq!(main.eqns[4].outputs.len(), 2);
        assert_eq!(main.value_types.len(), 30);
        assert_eq!(main.ty(main.results[2]), &Type::scalar(DType::I32));
    }

    /// A module with one Func returning one constant equation per array.
    fn constants_module(arrays: Vec<Array>) -> Module {
        let mut func = Func::new("consts");
        for value in arrays {
            let ty = Type::new(value.dtype(), value.shape());
            let out = func.new_value(ty.clone());
            let prim = Prim::constant(value, ty.shape.clone());
            func.eqns.push(Eqn { prim, inputs: smallvec![], outputs: smallvec![out], loc: None });
            func.result_types.push(ty);
            func.results.push(out);
        }
        let mut module = Module::new();
        module.push(func);
        module
    }

    /// Prints and parses back constants; returns the parsed values.
    fn reparse_constants(arrays: Vec<Array>) -> Vec<Array> {
        let text = print(&constants_module(arrays));
        let module = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(print(&module), text);
        let func = module.entry().unwrap();
        func.eqns
            .iter()
            .map(|e| match &e.prim {
                Prim::Shape(ShapeOp::Constant { value, .. }) => value.clone(),
                other => panic!("not a constant: {other:?}"),
            })
            .collect()
    }

    /// Pseudo-random bit patterns (xorshift), reproducible.
    fn bit_patterns(n: usize) -> impl Iterator<Item = u64> {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        (0..n).map(move |_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        })
    }

    const F32_SPECIALS: [f32; 14] = [
        0.0,
        -0.0,
        1e-45,
        -1e-45,
        1.175_494_2e-38,
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        f32::EPSILON,
        0.1,
        1.0 / 3.0,
        16_777_216.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];

    const F64_SPECIALS: [f64; 13] = [
        0.0,
        -0.0,
        5e-324,
        2.225_073_858_507_201e-308,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        0.1,
        1.0 / 3.0,
        9_007_199_254_740_993.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];

    #[test]
    fn f32_constants_round_trip_bit_for_bit() {
        let randoms = bit_patterns(2000).map(|b| f32::from_bits(b as u32)).filter(|x| !x.is_nan());
        let values: Vec<f32> = F32_SPECIALS.into_iter().chain(randoms).collect();
        let mut arrays: Vec<Array> = values.iter().map(|&x| Array::scalar_f32(x)).collect();
        arrays.push(Array::from_f32(&[values.len()], values.clone()).unwrap());
        let parsed = reparse_constants(arrays);
        let bits = |a: &Array| a.as_f32().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let expected: Vec<u32> = values.iter().map(|x| x.to_bits()).collect();
        let scalars: Vec<u32> = parsed[..values.len()].iter().flat_map(bits).collect();
        assert_eq!(scalars, expected);
        assert_eq!(bits(&parsed[values.len()]), expected);
    }

    #[test]
    fn f64_constants_round_trip_bit_for_bit() {
        let randoms = bit_patterns(2000).map(f64::from_bits).filter(|x| !x.is_nan());
        let values: Vec<f64> = F64_SPECIALS.into_iter().chain(randoms).collect();
        let mut arrays: Vec<Array> = values.iter().map(|&x| Array::scalar_f64(x)).collect();
        arrays.push(Array::from_f64(&[values.len()], values.clone()).unwrap());
        let parsed = reparse_constants(arrays);
        let bits = |a: &Array| a.as_f64().unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let expected: Vec<u64> = values.iter().map(|x| x.to_bits()).collect();
        let scalars: Vec<u64> = parsed[..values.len()].iter().flat_map(bits).collect();
        assert_eq!(scalars, expected);
        assert_eq!(bits(&parsed[values.len()]), expected);
    }

    #[test]
    fn nan_prints_as_nan_and_reads_back_as_nan() {
        let arrays = vec![
            Array::scalar_f32(f32::NAN),
            Array::scalar_f64(-f64::NAN),
            Array::from_f32(&[2], vec![f32::NAN, 1.0]).unwrap(),
        ];
        let text = print(&constants_module(arrays.clone()));
        assert!(text.contains("constant[value=nan]()") && text.contains("constant[value=[nan,1.0]]()"), "{text}");
        let parsed = reparse_constants(arrays);
        assert!(matches!(parsed[0].data(), Data::F32(v) if v[0].is_nan()));
        assert!(matches!(parsed[1].data(), Data::F64(v) if v[0].is_nan()));
        assert!(matches!(parsed[2].data(), Data::F32(v) if v[0].is_nan() && v[1] == 1.0));
    }

    #[test]
    fn special_float_literals_print_as_written() {
        let text = print(&constants_module(vec![
            Array::from_f32(&[4], vec![-0.0, 1e-45, f32::MAX, f32::NEG_INFINITY]).unwrap(),
            Array::from_f64(&[3], vec![f64::MIN_POSITIVE, f64::INFINITY, 5e-324]).unwrap(),
        ]));
        assert!(text.contains("[value=[-0.0,1e-45,3.4028235e38,-inf]]"), "{text}");
        assert!(text.contains("[value=[2.2250738585072014e-308,inf,5e-324]]"), "{text}");
    }

    /// Every prefix and many one-char corruptions of a valid module give a clean
    /// result (a module or a parse error), never a panic.
    #[test]
    fn damaged_text_never_panics() {
        let chars: Vec<(usize, char)> = CANONICAL.char_indices().collect();
        for &(at, _) in &chars {
            if let Err(e) = parse(&CANONICAL[..at]) {
                assert!(matches!(e, Error::Parse { line, col, .. } if line >= 1 && col >= 1), "{e:?}");
            }
        }
        for &(at, c) in chars.iter().step_by(3) {
            for replacement in ["", "[", "\"", "%", "-", "é", "\u{0}", "9999999999999999999999"] {
                let damaged = format!("{}{replacement}{}", &CANONICAL[..at], &CANONICAL[at + c.len_utf8()..]);
                if let Ok(module) = parse(&damaged) {
                    assert_eq!(round(&print(&module)), print(&module));
                }
            }
        }
    }
}

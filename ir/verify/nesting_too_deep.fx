; Funcs nest deeper than the verifier's limit of 256: an error, never a stack overflow.
func @f0(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f1](%x)
  return %y
}

func @f1(%x: f32[]) -> (f32[]) { ; error: Funcs nest 257 deep, more than the limit of 256
  %y: f32[] = call[func=@f2](%x)
  return %y
}

func @f2(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f3](%x)
  return %y
}

func @f3(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f4](%x)
  return %y
}

func @f4(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f5](%x)
  return %y
}

func @f5(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f6](%x)
  return %y
}

func @f6(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f7](%x)
  return %y
}

func @f7(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f8](%x)
  return %y
}

func @f8(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f9](%x)
  return %y
}

func @f9(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f10](%x)
  return %y
}

func @f10(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f11](%x)
  return %y
}

func @f11(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f12](%x)
  return %y
}

func @f12(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f13](%x)
  return %y
}

func @f13(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f14](%x)
  return %y
}

func @f14(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f15](%x)
  return %y
}

func @f15(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f16](%x)
  return %y
}

func @f16(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f17](%x)
  return %y
}

func @f17(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f18](%x)
  return %y
}

func @f18(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f19](%x)
  return %y
}

func @f19(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f20](%x)
  return %y
}

func @f20(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f21](%x)
  return %y
}

func @f21(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f22](%x)
  return %y
}

func @f22(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f23](%x)
  return %y
}

func @f23(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f24](%x)
  return %y
}

func @f24(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f25](%x)
  return %y
}

func @f25(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f26](%x)
  return %y
}

func @f26(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f27](%x)
  return %y
}

func @f27(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f28](%x)
  return %y
}

func @f28(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f29](%x)
  return %y
}

func @f29(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f30](%x)
  return %y
}

func @f30(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f31](%x)
  return %y
}

func @f31(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f32](%x)
  return %y
}

func @f32(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f33](%x)
  return %y
}

func @f33(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f34](%x)
  return %y
}

func @f34(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f35](%x)
  return %y
}

func @f35(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f36](%x)
  return %y
}

func @f36(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f37](%x)
  return %y
}

func @f37(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f38](%x)
  return %y
}

func @f38(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f39](%x)
  return %y
}

func @f39(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f40](%x)
  return %y
}

func @f40(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f41](%x)
  return %y
}

func @f41(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f42](%x)
  return %y
}

func @f42(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f43](%x)
  return %y
}

func @f43(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f44](%x)
  return %y
}

func @f44(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f45](%x)
  return %y
}

func @f45(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f46](%x)
  return %y
}

func @f46(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f47](%x)
  return %y
}

func @f47(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f48](%x)
  return %y
}

func @f48(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f49](%x)
  return %y
}

func @f49(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f50](%x)
  return %y
}

func @f50(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f51](%x)
  return %y
}

func @f51(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f52](%x)
  return %y
}

func @f52(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f53](%x)
  return %y
}

func @f53(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f54](%x)
  return %y
}

func @f54(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f55](%x)
  return %y
}

func @f55(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f56](%x)
  return %y
}

func @f56(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f57](%x)
  return %y
}

func @f57(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f58](%x)
  return %y
}

func @f58(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f59](%x)
  return %y
}

func @f59(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f60](%x)
  return %y
}

func @f60(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f61](%x)
  return %y
}

func @f61(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f62](%x)
  return %y
}

func @f62(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f63](%x)
  return %y
}

func @f63(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f64](%x)
  return %y
}

func @f64(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f65](%x)
  return %y
}

func @f65(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f66](%x)
  return %y
}

func @f66(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f67](%x)
  return %y
}

func @f67(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f68](%x)
  return %y
}

func @f68(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f69](%x)
  return %y
}

func @f69(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f70](%x)
  return %y
}

func @f70(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f71](%x)
  return %y
}

func @f71(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f72](%x)
  return %y
}

func @f72(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f73](%x)
  return %y
}

func @f73(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f74](%x)
  return %y
}

func @f74(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f75](%x)
  return %y
}

func @f75(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f76](%x)
  return %y
}

func @f76(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f77](%x)
  return %y
}

func @f77(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f78](%x)
  return %y
}

func @f78(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f79](%x)
  return %y
}

func @f79(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f80](%x)
  return %y
}

func @f80(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f81](%x)
  return %y
}

func @f81(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f82](%x)
  return %y
}

func @f82(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f83](%x)
  return %y
}

func @f83(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f84](%x)
  return %y
}

func @f84(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f85](%x)
  return %y
}

func @f85(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f86](%x)
  return %y
}

func @f86(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f87](%x)
  return %y
}

func @f87(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f88](%x)
  return %y
}

func @f88(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f89](%x)
  return %y
}

func @f89(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f90](%x)
  return %y
}

func @f90(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f91](%x)
  return %y
}

func @f91(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f92](%x)
  return %y
}

func @f92(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f93](%x)
  return %y
}

func @f93(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f94](%x)
  return %y
}

func @f94(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f95](%x)
  return %y
}

func @f95(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f96](%x)
  return %y
}

func @f96(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f97](%x)
  return %y
}

func @f97(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f98](%x)
  return %y
}

func @f98(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f99](%x)
  return %y
}

func @f99(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f100](%x)
  return %y
}

func @f100(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f101](%x)
  return %y
}

func @f101(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f102](%x)
  return %y
}

func @f102(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f103](%x)
  return %y
}

func @f103(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f104](%x)
  return %y
}

func @f104(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f105](%x)
  return %y
}

func @f105(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f106](%x)
  return %y
}

func @f106(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f107](%x)
  return %y
}

func @f107(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f108](%x)
  return %y
}

func @f108(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f109](%x)
  return %y
}

func @f109(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f110](%x)
  return %y
}

func @f110(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f111](%x)
  return %y
}

func @f111(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f112](%x)
  return %y
}

func @f112(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f113](%x)
  return %y
}

func @f113(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f114](%x)
  return %y
}

func @f114(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f115](%x)
  return %y
}

func @f115(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f116](%x)
  return %y
}

func @f116(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f117](%x)
  return %y
}

func @f117(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f118](%x)
  return %y
}

func @f118(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f119](%x)
  return %y
}

func @f119(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f120](%x)
  return %y
}

func @f120(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f121](%x)
  return %y
}

func @f121(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f122](%x)
  return %y
}

func @f122(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f123](%x)
  return %y
}

func @f123(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f124](%x)
  return %y
}

func @f124(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f125](%x)
  return %y
}

func @f125(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f126](%x)
  return %y
}

func @f126(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f127](%x)
  return %y
}

func @f127(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f128](%x)
  return %y
}

func @f128(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f129](%x)
  return %y
}

func @f129(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f130](%x)
  return %y
}

func @f130(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f131](%x)
  return %y
}

func @f131(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f132](%x)
  return %y
}

func @f132(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f133](%x)
  return %y
}

func @f133(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f134](%x)
  return %y
}

func @f134(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f135](%x)
  return %y
}

func @f135(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f136](%x)
  return %y
}

func @f136(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f137](%x)
  return %y
}

func @f137(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f138](%x)
  return %y
}

func @f138(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f139](%x)
  return %y
}

func @f139(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f140](%x)
  return %y
}

func @f140(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f141](%x)
  return %y
}

func @f141(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f142](%x)
  return %y
}

func @f142(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f143](%x)
  return %y
}

func @f143(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f144](%x)
  return %y
}

func @f144(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f145](%x)
  return %y
}

func @f145(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f146](%x)
  return %y
}

func @f146(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f147](%x)
  return %y
}

func @f147(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f148](%x)
  return %y
}

func @f148(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f149](%x)
  return %y
}

func @f149(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f150](%x)
  return %y
}

func @f150(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f151](%x)
  return %y
}

func @f151(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f152](%x)
  return %y
}

func @f152(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f153](%x)
  return %y
}

func @f153(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f154](%x)
  return %y
}

func @f154(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f155](%x)
  return %y
}

func @f155(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f156](%x)
  return %y
}

func @f156(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f157](%x)
  return %y
}

func @f157(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f158](%x)
  return %y
}

func @f158(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f159](%x)
  return %y
}

func @f159(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f160](%x)
  return %y
}

func @f160(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f161](%x)
  return %y
}

func @f161(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f162](%x)
  return %y
}

func @f162(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f163](%x)
  return %y
}

func @f163(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f164](%x)
  return %y
}

func @f164(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f165](%x)
  return %y
}

func @f165(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f166](%x)
  return %y
}

func @f166(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f167](%x)
  return %y
}

func @f167(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f168](%x)
  return %y
}

func @f168(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f169](%x)
  return %y
}

func @f169(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f170](%x)
  return %y
}

func @f170(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f171](%x)
  return %y
}

func @f171(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f172](%x)
  return %y
}

func @f172(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f173](%x)
  return %y
}

func @f173(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f174](%x)
  return %y
}

func @f174(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f175](%x)
  return %y
}

func @f175(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f176](%x)
  return %y
}

func @f176(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f177](%x)
  return %y
}

func @f177(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f178](%x)
  return %y
}

func @f178(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f179](%x)
  return %y
}

func @f179(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f180](%x)
  return %y
}

func @f180(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f181](%x)
  return %y
}

func @f181(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f182](%x)
  return %y
}

func @f182(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f183](%x)
  return %y
}

func @f183(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f184](%x)
  return %y
}

func @f184(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f185](%x)
  return %y
}

func @f185(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f186](%x)
  return %y
}

func @f186(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f187](%x)
  return %y
}

func @f187(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f188](%x)
  return %y
}

func @f188(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f189](%x)
  return %y
}

func @f189(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f190](%x)
  return %y
}

func @f190(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f191](%x)
  return %y
}

func @f191(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f192](%x)
  return %y
}

func @f192(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f193](%x)
  return %y
}

func @f193(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f194](%x)
  return %y
}

func @f194(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f195](%x)
  return %y
}

func @f195(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f196](%x)
  return %y
}

func @f196(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f197](%x)
  return %y
}

func @f197(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f198](%x)
  return %y
}

func @f198(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f199](%x)
  return %y
}

func @f199(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f200](%x)
  return %y
}

func @f200(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f201](%x)
  return %y
}

func @f201(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f202](%x)
  return %y
}

func @f202(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f203](%x)
  return %y
}

func @f203(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f204](%x)
  return %y
}

func @f204(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f205](%x)
  return %y
}

func @f205(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f206](%x)
  return %y
}

func @f206(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f207](%x)
  return %y
}

func @f207(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f208](%x)
  return %y
}

func @f208(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f209](%x)
  return %y
}

func @f209(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f210](%x)
  return %y
}

func @f210(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f211](%x)
  return %y
}

func @f211(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f212](%x)
  return %y
}

func @f212(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f213](%x)
  return %y
}

func @f213(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f214](%x)
  return %y
}

func @f214(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f215](%x)
  return %y
}

func @f215(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f216](%x)
  return %y
}

func @f216(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f217](%x)
  return %y
}

func @f217(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f218](%x)
  return %y
}

func @f218(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f219](%x)
  return %y
}

func @f219(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f220](%x)
  return %y
}

func @f220(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f221](%x)
  return %y
}

func @f221(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f222](%x)
  return %y
}

func @f222(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f223](%x)
  return %y
}

func @f223(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f224](%x)
  return %y
}

func @f224(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f225](%x)
  return %y
}

func @f225(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f226](%x)
  return %y
}

func @f226(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f227](%x)
  return %y
}

func @f227(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f228](%x)
  return %y
}

func @f228(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f229](%x)
  return %y
}

func @f229(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f230](%x)
  return %y
}

func @f230(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f231](%x)
  return %y
}

func @f231(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f232](%x)
  return %y
}

func @f232(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f233](%x)
  return %y
}

func @f233(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f234](%x)
  return %y
}

func @f234(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f235](%x)
  return %y
}

func @f235(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f236](%x)
  return %y
}

func @f236(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f237](%x)
  return %y
}

func @f237(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f238](%x)
  return %y
}

func @f238(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f239](%x)
  return %y
}

func @f239(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f240](%x)
  return %y
}

func @f240(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f241](%x)
  return %y
}

func @f241(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f242](%x)
  return %y
}

func @f242(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f243](%x)
  return %y
}

func @f243(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f244](%x)
  return %y
}

func @f244(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f245](%x)
  return %y
}

func @f245(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f246](%x)
  return %y
}

func @f246(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f247](%x)
  return %y
}

func @f247(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f248](%x)
  return %y
}

func @f248(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f249](%x)
  return %y
}

func @f249(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f250](%x)
  return %y
}

func @f250(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f251](%x)
  return %y
}

func @f251(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f252](%x)
  return %y
}

func @f252(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f253](%x)
  return %y
}

func @f253(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f254](%x)
  return %y
}

func @f254(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f255](%x)
  return %y
}

func @f255(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f256](%x)
  return %y
}

func @f256(%x: f32[]) -> (f32[]) {
  %y: f32[] = call[func=@f257](%x)
  return %y
}

func @f257(%x: f32[]) -> (f32[]) {
  return %x
}

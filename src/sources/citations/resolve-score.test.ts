import { describe, expect, it } from "vitest";
import { firstAuthorCited } from "./resolve-score";

describe("firstAuthorCited", () => {
  it.each([
    ["C.-H. Chang et al., Commun. Theor. Phys. 49, 993 (2008).", "Chao-Hsi Chang", true],
    ["C.-H. Chang et al., Commun. Theor. Phys. 49, 993 (2008).", "Ming-Wei Chang", false],
    ["Chang et al., Commun. Theor. Phys. 49, 993 (2008).", "Ming-Wei Chang", true],
    ["G. Gour and N. R. Wallach, Phys. Rev. A 76, 042309 (2007).", "Gilad Gour", true],
    ["Gour G, Wallach NR. Physical Review A 76:042309, 2007", "Gilad Gour", true],
    ["Mhlahlo, N., Buckley, D. H., Dhillon, V. S., et al. 2007, MNRAS, 378, 211", "Nceba Mhlahlo", true],
    ["Stahn, C. 2007, JHEP, 05, 034", "Christian Stahn", true],
    ["C. Bal\\'azs, E. L. Berger, Phys. Rev. D 76, 13009 (2007)", "C. Bal\\'azs", true],
    ["J.-W. Lee, K. Kim, C. H. Lee, Journal of the Korean Physical Society, 50, 1229 (2007)", "S. K. Kim", false],
    ["T. Khongsap and W. Wang, Gen. Rel. Grav. 39, 1545 (2007).", "Huaning Wang", false],
    ["T. Khongsap and W. Wang, Gen. Rel. Grav. 39, 1545 (2007).", "Someone Else", false],
    // Three initials before the surname: the first is the given name's.
    ["D. F. M. Torres, G. Leitmann, J. Optim. Theory Appl. 137 (2008), no. 1, 53--59", "Delfim F. M. Torres", true],
    ["G. S. F. Frederico, D. F. M. Torres, Applicable Analysis, Volume 86", "Gastao S. F. Frederico", true],
    ["P. Smith, A. E. Ismail, G. S. Grest, J. Chem. Phys. 127 (2007) 144711.", "Gary S. Grest", true],
    ["P. Smith, A. E. Ismail, G. S. Grest, J. Chem. Phys. 127 (2007) 144711.", "Ahmed E. Grest", false],
  ])("%s names %s first: %s", (plain, name, expected) => {
    expect(firstAuthorCited(plain, name)).toBe(expected);
  });
});

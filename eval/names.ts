import { stableChance, weighted } from './stable.ts';

/**
 * People's names for the synthetic traffic, as a US merchant's customers carry them, each fixed by
 * a key (a customer's id, a card) through a stable hash: no draw from the traffic's random stream.
 * Who shares a surname with whom is the patterns' decision (eval/README.md, "Names"); the shares
 * they use are here, with their reasons.
 */
export interface PersonName {
  firstName: string;
  surname: string;
}

/**
 * A household member (on the household's device and at its address) carries the surname of the
 * member he is linked to on this share: about four in five such households are families, where
 * about four in five members share it (79 % of US women in opposite-sex marriages took their
 * husband's surname, Pew Research 2023; children mostly carry a parent's), the rest are unmarried
 * partners and roommates, who rarely do.
 */
export const HOUSEHOLD_SURNAME_SHARE = 0.65;
/** A family's members (the look-alikes described as families): couples, parents and their children. */
export const FAMILY_SURNAME_SHARE = 0.8;
/**
 * An order on a stolen card carries the cardholder's name on this share: the card came with the
 * holder's name ("fullz"), entered so the billing name matches the card; otherwise the fraudster
 * makes up a name for the fresh e-mail.
 */
export const CARDHOLDER_NAME_SHARE = 0.5;

// Approximate: surnames per 100,000 people from the US Census Bureau's 2010 surname file (ranks
// 1-100), beyond rank 100 in its rank order with a power curve fitted to it; first names weighted
// roughly by SSA birth-name counts for people born 1955-2005 (the adults who shop online).
const TOP_SURNAMES: readonly (readonly [string, number])[] = [
  ['Smith', 828],
  ['Johnson', 655],
  ['Williams', 551],
  ['Brown', 487],
  ['Jones', 483],
  ['Garcia', 395],
  ['Miller', 394],
  ['Davis', 380],
  ['Rodriguez', 369],
  ['Martinez', 354],
  ['Hernandez', 334],
  ['Lopez', 298],
  ['Gonzalez', 285],
  ['Wilson', 275],
  ['Anderson', 268],
  ['Thomas', 256],
  ['Taylor', 253],
  ['Moore', 241],
  ['Jackson', 237],
  ['Martin', 234],
  ['Lee', 230],
  ['Perez', 226],
  ['Thompson', 220],
  ['White', 218],
  ['Harris', 201],
  ['Sanchez', 200],
  ['Clark', 173],
  ['Ramirez', 173],
  ['Lewis', 169],
  ['Robinson', 168],
  ['Walker', 166],
  ['Young', 154],
  ['Allen', 152],
  ['King', 151],
  ['Wright', 150],
  ['Scott', 142],
  ['Torres', 141],
  ['Nguyen', 139],
  ['Hill', 137],
  ['Flores', 135],
  ['Green', 135],
  ['Adams', 133],
  ['Nelson', 132],
  ['Baker', 130],
  ['Hall', 127],
  ['Rivera', 125],
  ['Campbell', 122],
  ['Mitchell', 121],
  ['Carter', 119],
  ['Roberts', 118],
  ['Gomez', 115],
  ['Phillips', 113],
  ['Evans', 112],
  ['Turner', 110],
  ['Diaz', 109],
  ['Parker', 107],
  ['Cruz', 106],
  ['Edwards', 106],
  ['Collins', 105],
  ['Reyes', 105],
  ['Stewart', 104],
  ['Morris', 100],
  ['Morales', 98],
  ['Murphy', 98],
  ['Cook', 97],
  ['Rogers', 97],
  ['Gutierrez', 96],
  ['Ortiz', 94],
  ['Morgan', 94],
  ['Cooper', 93],
  ['Peterson', 93],
  ['Bailey', 92],
  ['Reed', 92],
  ['Kelly', 91],
  ['Howard', 91],
  ['Ramos', 90],
  ['Kim', 89],
  ['Cox', 89],
  ['Ward', 88],
  ['Richardson', 88],
  ['Watson', 87],
  ['Brooks', 86],
  ['Chavez', 86],
  ['Wood', 85],
  ['James', 85],
  ['Bennett', 84],
  ['Gray', 84],
  ['Mendoza', 83],
  ['Ruiz', 82],
  ['Hughes', 81],
  ['Price', 80],
  ['Alvarez', 80],
  ['Castillo', 79],
  ['Sanders', 79],
  ['Patel', 78],
  ['Myers', 78],
  ['Long', 77],
  ['Ross', 77],
  ['Foster', 76],
  ['Jimenez', 76],
];

/** Ranks 101 on, in the census's order (roughly): the long tail. */
const MORE_SURNAMES = `Powell Jenkins Perry Russell Sullivan Bell Coleman Butler Henderson Barnes Gonzales
Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham Reynolds Griffin Wallace Moreno
West Cole Hayes Bryant Herrera Gibson Ellis Tran Medina Aguilar Stevens Murray Ford Castro Marshall Owens
Harrison Fernandez McDonald Woods Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman
Burns Crawford Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz Hunt Hicks
Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox Warren Mills Meyer Rice Schmidt Garza
Daniels Ferguson Nichols Stephens Soto Weaver Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold
Pierce Vazquez Hansen Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll
Lane Riley Andrews Alvarado Ray Delgado Berry Perkins Hoffman Johnston Matthews Pena Richards Contreras
Willis Carpenter Lawrence Sandoval Guerrero George Chapman Rios Estrada Ortega Watkins Greene Nunez Wheeler
Valdez Harper Burke Larson Santiago Maldonado Morrison Franklin Carlson Austin Dominguez Carr Lawson Jacobs
O'Brien Lynch Singh Vega Bishop Montgomery Oliver Jensen Harvey Williamson Gilbert Dean Sims Espinoza Howell
Li Wong Reid Hanson Le McCoy Garrett Burton Fuller Wang Weber Welch Rojas Lucas Marquez Fields Park Yang
Little Banks Padilla Day Walsh Bowman Schultz Luna Fowler Mejia Davidson Acosta Brewer May Holland Juarez
Newman Pearson Curtis Cortez Douglas Schneider Joseph Barrett Navarro Figueroa Keller Avila Wade Molina
Stanley Hopkins Campos Barnett Bates Chambers Caldwell Beck Lambert Miranda Byrd Craig Ayala Lowe Frazier
Powers Neal Leonard Gregory Carrillo Sutton Fleming Rhodes Shelton Schwartz Norris Jennings Watts Duran
Walters Cohen McDaniel Moran Parks Steele Vaughn Becker Holt Deleon Barker Terry Hale Leon Benson Haynes
Horton Miles Lyons Pham Graves Bush Thornton Wolfe Warner Cabrera McKinney Mann Zimmerman Dawson Lara
Fletcher Page McCarthy Love Robles Cervantes Solis Erickson Reeves Chang Klein Salinas Fuentes Baldwin
Daniel Simon Velasquez Hardy Higgins Aguirre Lin Cummings Chandler Sharp Barber Bowen Ochoa Dennis Robbins
Liu Ramsey Francis Griffith Paul Blair O'Connor Cardenas Pacheco Cross Calderon Quinn Moss Swanson Chan
Rivas Khan Rodgers Serrano Fitzgerald Rosales Stevenson Christensen Manning Gill Curry McLaughlin Harmon
McGee Gross Doyle Garner Newton Burgess Reese Walton Blake Trujillo Adkins Brady Goodman Roman Webster
Goodwin Fischer Huang Potter Delacruz Montoya Todd Wu Hines Mullins Castaneda Malone Cannon Tate Mack
Sherman Hubbard Hodges Zhang Guerra Wolf Valencia Saunders Franco Rowe Gallagher Farmer Hammond Hampton
Townsend Ingram Wise Gallegos Clarke Barton Schroeder Maxwell Waters Logan Camacho Strickland Norman
Person Colon Parsons Frank Harrington Glover Osborne Buchanan Casey Floyd Patton Ibarra Ball Tyler Suarez
Bowers Orozco Salas Cobb Gibbs Andrade Bauer Conner Moody Escobar McGuire Lloyd Mueller Hartman French
Kramer McBride Pope Lindsey Velazquez Norton McCormick Sparks Flynn Yates Hogan Marsh Macias Villanueva
Zamora Pratt Stokes Owen Ballard Lang Brock Villarreal Charles Drake Barrera Cain Patrick Pineda Burnett
Mercado Santana Shepherd Bautista Ali Shaffer Lamb Trevino McKenzie Hess Olsen Cochran Morton Nash Wilkins
Petersen Briggs Shah Roth Nicholson Holloway Lozano Rangel Flowers Hoover Short Arias Mora Valenzuela
Bryan Meyers Weiss Underwood Bass Greer Summers Houston Carson Morrow Clayton Whitaker Decker Yoder Collier
Zuniga Carey Wilcox Melendez Poole Roberson Larsen Conley Davenport Copeland Massey Lam Huff Rocha Cameron
Jefferson Hood Monroe Anthony Pittman Huynh Randall Singleton Kirk Combs Mathis Christian Skinner Bradford
Richard Galvan Wall Boone Kirby Wilkinson Bridges Bruce Atkinson Velez Meza Roy Vincent York Hodge Villa
Abbott Allison Tapia Gates Chase Sosa Sweeney Farrell Wyatt Dalton Horn Barron Phelps Yu Dickerson Heath
Foley Atkins Mathews Bonilla Acevedo Benitez Zavala Hensley Glenn Cisneros Harrell Shields Rubio Huffman
Choi Boyer Garrison Arroyo Bond Kane Hancock Callahan Dillon Cline Wiggins Grimes Arellano Melton O'Neill
Savage Ho Beltran Pitts Parrish Ponce Rich Booth Koch Golden Ware Brennan McDowell Marks Cantu Humphrey
Baxter Sawyer Clay Tanner Hutchinson Kaur Berg Wiley Gilmore Russo Villegas Hobbs Keith Wilkerson Ahmed
Beard McClain Montes Mata Rosario Vang Walter Henson O'Neal Mosley McClure Beasley Stephenson Snow Huerta
Preston Vance Barry Johns Eaton Blackwell Dyer Prince Macdonald Solomon Guevara Stafford English Hurst
Woodard Cortes Shannon Kemp Nolan McCullough Merritt Murillo Moon Salgado Strong Kline Cordova Barajas
Roach Rosas Winters Jacobson Lester Knox Bullock Kerr Leach Meadows Orr Davila Whitehead Pruitt Kent
Conway McKee Barr David Dejesus Marin Berger McIntyre Blankenship Gaines Palacios Cuevas Bartlett Durham
Dorsey McCall O'Donnell Stein Browning Stout Lowery Sloan McLean Hendricks Calhoun Sexton Chung Gentry
Hull Duarte Ellison Nielsen Gillespie Buck Middleton Sellers Leblanc Esparza Hardin Bradshaw McIntosh
Howe Livingston Frost Glass Morse Knapp Herman Stark Bravo Noble Spears Weeks Corona Frederick Buckley
McFarland Hebert Enriquez Hickman Quintero Randolph Schaefer Walls Trejo House Reilly Pennington Michael
Conrad Giles Benjamin Crosby Fitzpatrick Donovan Mays Mahoney Valentine Raymond Medrano Hahn McMillan
Small Bentley Felix Peck Lucero Boyle Hanna Pace Rush Hurley Harding McConnell Bernal Nava Ayers Everett
Ventura Avery Pugh Mayer Bender Shepard McMahon Landry Case Sampson Moses Magana Blackburn Dunlap Gould
Duffy Vaughan Herring McKay Espinosa Rivers Farley Bernard Ashley Friedman Potts Truong Costa Correa
Blevins Nixon Clements Fry Delarosa Best Benton Lugo Portillo Dougherty Crane Haley Phan Villalobos
Blanchard Horne Finley Quintana Lynn Esquivel Bean Dodson Mullen Xiong Hayden Cano Levy Huber Richmond
Moyer Lim Frye Sheppard McCarty Avalos Booker Waller Parra Woodward Jaramillo Krueger Rasmussen Brandt
Peralta Donaldson Stuart Faulkner Maynard Galindo Coffey Estes Sanford Burch Maddox Vo O'Connell Vu
Andersen Spence McPherson Church Schmitt Stanton Leal Cherry Compton Dudley Sierra Pollard Alfaro Hester
Proctor Lu Hinton Novak Good Madden McCann Terrell Jarvis Dickson Reyna Cantrell Mayo Branch Hendrix
Rollins Rowland Whitney Duke Odom Daugherty Travis Tang`
  .split(/\s+/)
  .filter(Boolean);

/** Share per 100,000 at a rank past 100: the census's own decline (about 76 at 100, 13 at 1,000). */
const rankCurve = (rank: number) => 76 * (100 / rank) ** 0.78;

/**
 * Every listed name stands for rarer ones too: the mass of the surnames not listed (more than half of
 * the population) is spread evenly over the list, so it sums to the population, the order of the
 * names stays the census's, and Smith is about 0.9 %.
 */
const SURNAMES = withUnlisted(
  [...TOP_SURNAMES, ...MORE_SURNAMES.map((name, i) => [name, rankCurve(101 + i)] as const)],
  100_000,
);

function withUnlisted(list: readonly (readonly [string, number])[], population: number) {
  const unlisted = population - list.reduce((sum, [, share]) => sum + share, 0);
  return list.map(([name, share]) => [name, share + unlisted / list.length] as const);
}

/** First names with their rough share per 1,000 of their sex (the unlisted ones spread as above). */
const FEMALE_NAMES: readonly (readonly [string, number])[] = [
  ['Jennifer', 20],
  ['Jessica', 16],
  ['Ashley', 14],
  ['Sarah', 13],
  ['Amanda', 12],
  ['Elizabeth', 10],
  ['Melissa', 10],
  ['Michelle', 10],
  ['Lisa', 10],
  ['Mary', 9],
  ['Stephanie', 9],
  ['Nicole', 9],
  ['Emily', 9],
  ['Kimberly', 9],
  ['Amy', 8],
  ['Heather', 8],
  ['Angela', 8],
  ['Rebecca', 7],
  ['Laura', 7],
  ['Samantha', 7],
  ['Rachel', 7],
  ['Megan', 7],
  ['Brittany', 6],
  ['Lauren', 6],
  ['Christina', 6],
  ['Karen', 6],
  ['Patricia', 5],
  ['Susan', 5],
  ['Hannah', 5],
  ['Danielle', 5],
  ['Kelly', 5],
  ['Julie', 5],
  ['Amber', 5],
  ['Maria', 5],
  ['Linda', 5],
  ['Andrea', 4],
  ['Katherine', 4],
  ['Tiffany', 4],
  ['Erin', 4],
  ['Crystal', 4],
  ['Christine', 4],
  ['Deborah', 4],
  ['Sandra', 4],
  ['Anna', 3],
  ['Barbara', 3],
  ['Donna', 3],
  ['Kristen', 3],
  ['Kathleen', 3],
  ['Victoria', 3],
  ['Natalie', 3],
  ['Alyssa', 3],
  ['Courtney', 3],
  ['Kayla', 3],
  ['Taylor', 3],
  ['Erica', 3],
  ['Allison', 3],
  ['Cynthia', 3],
  ['Tammy', 3],
  ['Pamela', 3],
  ['Brenda', 3],
  ['Sara', 3],
  ['Shannon', 3],
  ['Emma', 3],
  ['Alexis', 2],
  ['Olivia', 2],
  ['Madison', 2],
  ['Abigail', 2],
  ['Chelsea', 2],
  ['Tara', 2],
  ['Dana', 2],
  ['Monica', 2],
  ['Vanessa', 2],
  ['Catherine', 2],
  ['Diana', 2],
  ['Jasmine', 2],
  ['Alicia', 2],
  ['Holly', 2],
  ['Kathryn', 2],
  ['Margaret', 2],
  ['Teresa', 2],
  ['Veronica', 2],
  ['Valerie', 2],
  ['April', 2],
  ['Jacqueline', 2],
  ['Kristin', 2],
  ['Denise', 2],
  ['Sharon', 2],
  ['Melanie', 2],
  ['Whitney', 2],
  ['Morgan', 2],
  ['Kelsey', 2],
  ['Julia', 2],
  ['Carolyn', 1],
  ['Caitlin', 1],
  ['Leah', 1],
  ['Grace', 1],
  ['Sophia', 1],
  ['Ana', 1],
  ['Gabriela', 1],
  ['Yesenia', 1],
  ['Guadalupe', 1],
  ['Keisha', 1],
  ['Ebony', 1],
  ['Priya', 0.5],
  ['Mei', 0.5],
  ['Linh', 0.5],
];

const MALE_NAMES: readonly (readonly [string, number])[] = [
  ['Michael', 35],
  ['James', 23],
  ['David', 23],
  ['Christopher', 22],
  ['John', 22],
  ['Robert', 21],
  ['Matthew', 16],
  ['Joseph', 15],
  ['Daniel', 15],
  ['William', 15],
  ['Joshua', 13],
  ['Jason', 12],
  ['Brian', 10],
  ['Anthony', 10],
  ['Andrew', 10],
  ['Thomas', 10],
  ['Ryan', 9],
  ['Kevin', 9],
  ['Steven', 9],
  ['Eric', 8],
  ['Mark', 8],
  ['Richard', 8],
  ['Timothy', 7],
  ['Jeffrey', 7],
  ['Justin', 7],
  ['Brandon', 7],
  ['Nicholas', 7],
  ['Charles', 7],
  ['Jonathan', 7],
  ['Scott', 6],
  ['Paul', 6],
  ['Jacob', 6],
  ['Adam', 5],
  ['Gregory', 5],
  ['Kenneth', 5],
  ['Benjamin', 5],
  ['Stephen', 5],
  ['Tyler', 5],
  ['Jose', 5],
  ['Aaron', 4],
  ['Patrick', 4],
  ['Sean', 4],
  ['Zachary', 4],
  ['Kyle', 4],
  ['Nathan', 4],
  ['Jeremy', 4],
  ['Gary', 4],
  ['Donald', 4],
  ['Ronald', 4],
  ['Alexander', 4],
  ['Samuel', 3],
  ['Travis', 3],
  ['Dustin', 3],
  ['Keith', 3],
  ['Jesse', 3],
  ['Christian', 3],
  ['Austin', 3],
  ['Cody', 3],
  ['Edward', 3],
  ['Juan', 3],
  ['Luis', 3],
  ['Carlos', 3],
  ['Ethan', 3],
  ['Jordan', 3],
  ['Larry', 3],
  ['Peter', 2],
  ['Bradley', 2],
  ['Shawn', 2],
  ['Derek', 2],
  ['Miguel', 2],
  ['Antonio', 2],
  ['Marcus', 2],
  ['Noah', 2],
  ['Dylan', 2],
  ['Evan', 2],
  ['Frank', 2],
  ['Raymond', 2],
  ['Dennis', 2],
  ['Douglas', 2],
  ['Shane', 2],
  ['Chad', 2],
  ['Todd', 2],
  ['Corey', 2],
  ['Victor', 2],
  ['Ian', 2],
  ['Joel', 2],
  ['Phillip', 2],
  ['Bryan', 2],
  ['Craig', 2],
  ['Jerry', 2],
  ['Terry', 2],
  ['Jorge', 1],
  ['Jack', 1],
  ['Derrick', 1],
  ['Vincent', 1],
  ['Erik', 1],
  ['Logan', 1],
  ['Luke', 1],
  ['Adrian', 1],
  ['Cameron', 1],
  ['Trevor', 1],
  ['Mario', 1],
  ['Ricardo', 1],
  ['Martin', 1],
  ['Manuel', 1],
  ['Andre', 1],
  ['DeShawn', 0.5],
  ['Rahul', 0.5],
  ['Wei', 0.5],
  ['Minh', 0.5],
];

const FEMALE = withUnlisted(FEMALE_NAMES, 1000);
const MALE = withUnlisted(MALE_NAMES, 1000);

/** The nicknames people give for some of them. */
const NICKNAMES: Readonly<Record<string, readonly string[]>> = {
  Michael: ['Mike'],
  James: ['Jim', 'Jimmy'],
  David: ['Dave'],
  Christopher: ['Chris'],
  John: ['Johnny', 'Jack'],
  Robert: ['Rob', 'Bob'],
  Matthew: ['Matt'],
  Joseph: ['Joe'],
  Daniel: ['Dan', 'Danny'],
  William: ['Will', 'Bill'],
  Joshua: ['Josh'],
  Anthony: ['Tony'],
  Andrew: ['Andy', 'Drew'],
  Thomas: ['Tom'],
  Steven: ['Steve'],
  Richard: ['Rick', 'Rich'],
  Timothy: ['Tim'],
  Jeffrey: ['Jeff'],
  Nicholas: ['Nick'],
  Charles: ['Charlie', 'Chuck'],
  Jonathan: ['Jon'],
  Gregory: ['Greg'],
  Kenneth: ['Ken'],
  Benjamin: ['Ben'],
  Stephen: ['Steve'],
  Zachary: ['Zach'],
  Nathan: ['Nate'],
  Ronald: ['Ron'],
  Donald: ['Don'],
  Alexander: ['Alex'],
  Samuel: ['Sam'],
  Edward: ['Ed', 'Eddie'],
  Jennifer: ['Jen', 'Jenny'],
  Jessica: ['Jess'],
  Elizabeth: ['Liz', 'Beth'],
  Kimberly: ['Kim'],
  Stephanie: ['Steph'],
  Samantha: ['Sam'],
  Rebecca: ['Becky'],
  Christina: ['Tina'],
  Patricia: ['Pat', 'Trish'],
  Susan: ['Sue'],
  Katherine: ['Kate', 'Katie'],
  Kathleen: ['Kathy'],
  Deborah: ['Deb'],
  Victoria: ['Vicky', 'Tori'],
  Abigail: ['Abby'],
  Margaret: ['Maggie', 'Peggy'],
  Cynthia: ['Cindy'],
  Amanda: ['Mandy'],
  Nicole: ['Nikki'],
  Alexis: ['Lexi'],
};

/** The usual nicknames of a first name (none for most). */
export const nicknamesOf = (firstName: string): readonly string[] => NICKNAMES[firstName] ?? [];

/** A person's own name, fixed by `key`: first name and surname independent, as in the population. */
export function personName(key: string): PersonName {
  const names = stableChance(`sex:${key}`) < 0.5 ? FEMALE : MALE;
  return {
    firstName: weighted(names, stableChance(`first-name:${key}`)),
    surname: weighted(SURNAMES, stableChance(`surname:${key}`)),
  };
}

/** The name of the person a card was issued to (the victim, for a stolen card). */
export function cardholderName(card: { BIN: string; last4: string; expiry: string }): PersonName {
  return personName(`cardholder:${card.BIN}:${card.last4}:${card.expiry}`);
}

/** The same person under a variation of his name: a nickname where one is usual, else an initial. */
export function nameVariant(name: PersonName, key: string): PersonName {
  const nicknames = NICKNAMES[name.firstName];
  const draw = stableChance(`variant:${key}`);
  const firstName =
    nicknames && draw < 0.7
      ? nicknames[Math.floor((draw / 0.7) * nicknames.length)]!
      : `${name.firstName[0]}.`;
  return { firstName, surname: name.surname };
}

/**
 * Shares of the ways an account is named after a person (the rest: a name of its own, made up or
 * the account holder's): `same` his exact name, `variant` a variation of it, `relative` his surname
 * with a first name of its own (a spouse or child, real or invented).
 */
export interface NamedAfter {
  same?: number;
  variant?: number;
  relative?: number;
}

/** The name an account `key` carries: its own, or after `person` on the given shares (fixed by `key`). */
export function nameAfter(own: PersonName, person: PersonName, key: string, shares: NamedAfter): PersonName {
  const draw = stableChance(`named-after:${key}`);
  const same = shares.same ?? 0;
  const variant = same + (shares.variant ?? 0);
  const relative = variant + (shares.relative ?? 0);
  if (draw < same) return { firstName: person.firstName, surname: person.surname };
  if (draw < variant) return nameVariant(person, key);
  if (draw < relative) return { firstName: own.firstName, surname: person.surname };
  return { firstName: own.firstName, surname: own.surname };
}
